import { createResource, Show } from 'solid-js';
import type { AppClient } from './engine-client.ts';

/** Object URLs of stored pictures, made once per hash: a picture never changes once stored. */
const urls = new Map<string, Promise<string | null>>();

export function pictureUrl(client: AppClient, hash: string): Promise<string | null> {
  let url = urls.get(hash);
  if (!url) {
    url = client.engine
      .image(hash)
      .then((image) => {
        if (!image) return null;
        const bytes = Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0));
        return URL.createObjectURL(new Blob([bytes], { type: image.mime }));
      })
      // Not readable now (another tab is taking over): initials meanwhile, and asked again next time.
      .catch(() => {
        urls.delete(hash);
        return null;
      });
    urls.set(hash, url);
  }
  return url;
}

/** Up to two letters from a name: "Captain Mira Vance" → "CV", "李娜" → "李娜". */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = [...words[0]!][0] ?? '';
  const last = words.length > 1 ? ([...words.at(-1)!][0] ?? '') : ([...words[0]!][1] ?? '');
  return (first + last).toUpperCase();
}

/** A colour that is always the same for a name, dark enough for white letters. */
export function hueOf(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.codePointAt(0)!) % 360;
  return h;
}

/**
 * A face: the stored picture when there is one, else the name's initials on the name's colour.
 * Decorative beside a written name (alt=""), so screen readers read the name once.
 */
export function Avatar(props: { client: AppClient; name: string; hash: string | null | undefined; size?: 'small' | 'large' | 'portrait' | 'stage' }) {
  const [url] = createResource(
    () => props.hash || null,
    (hash) => pictureUrl(props.client, hash),
  );
  const size = () => `avatar ${props.size ?? 'small'}`;
  return (
    <Show
      when={url()}
      fallback={
        <span class={`${size()} generated`} style={{ background: `hsl(${hueOf(props.name)} 45% 34%)` }} aria-hidden="true">
          {initialsOf(props.name)}
        </span>
      }
    >
      {(src) => <img class={size()} src={src()} alt="" />}
    </Show>
  );
}
