import type { DOMPurify } from 'dompurify';
import { look } from './look.ts';

/**
 * The one way text from a card (or, later, a model) is shown as HTML. Cards are this field's known
 * attack vector, so what DOMPurify leaves is trimmed further:
 * - nothing can look like the app or its controls: no `class`, `id`, `style`, `role`, `aria-*` or
 *   `data-*` attributes, no forms, buttons or inputs, and the container styles what remains;
 * - nothing loads from elsewhere: an image, video, audio, SVG image or poster from another address
 *   becomes a link the player may open (in a new tab, with no referrer); only `data:` images show,
 *   and, when the player allows remote images (Settings → Look), a remote picture fetched through
 *   the relay (relay/image-proxy.ts) and shown from a `blob:` address, the CSP's `img-src` unchanged;
 * - links open in a new tab with no referrer and no opener, and only http(s) or mailto.
 * The result is a DocumentFragment appended as nodes, so no markup string reaches an HTML sink and
 * nothing is parsed twice.
 */
export interface CardHtml {
  fragment: DocumentFragment;
  /** Addresses the card asked the browser to load, which were not. */
  notLoaded: string[];
}

const FORBID_TAGS = ['style', 'form', 'input', 'button', 'select', 'option', 'textarea', 'dialog', 'link', 'meta', 'base', 'template', 'slot'];
const FORBID_ATTR = ['style', 'class', 'id', 'role', 'name', 'srcset', 'sizes', 'ping', 'background', 'formaction', 'action', 'target', 'tabindex', 'accesskey', 'autofocus', 'popover', 'contenteditable'];
/** Attributes through which an element loads something by itself. */
const LOADING_ATTRIBUTES = ['src', 'poster', 'href', 'xlink:href', 'data', 'lowsrc', 'dynsrc', 'longdesc'];
const SAFE_LINK = /^(https?:|mailto:)/i;
const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp|avif|bmp);/i;

let purifier: Promise<DOMPurify> | undefined;
let markdown: Promise<(text: string) => string> | undefined;

/**
 * Loads DOMPurify and marked (a card's notes are the first thing that needs them) and answers the
 * sanitiser. Card authors write their notes in markdown, HTML, or both mixed.
 */
export async function loadCardHtml(): Promise<(html: string) => CardHtml> {
  purifier ??= import('dompurify').then((m) => m.default);
  markdown ??= import('marked').then(({ Marked }) => {
    // Indented lines in a card's HTML are layout, not code blocks.
    const parser = new Marked({ gfm: true, breaks: true, tokenizer: { code: () => undefined } });
    return (text) => parser.parse(text, { async: false });
  });
  const [purify, toHtml] = await Promise.all([purifier, markdown]);
  return (text) => cardHtml(purify, toHtml(text));
}

/**
 * Parsing markup applies its `<style>` elements and `style` attributes, and may compile its event
 * handlers, even in the sanitiser's inert document; the CSP refuses each and reports it, so a card
 * styled by its author (or a hostile one) would log violations on every view. Renamed before
 * parsing, they are dropped as the unknown things they then are. This only quiets the reports:
 * what keeps the markup safe is DOMPurify and the rules above.
 */
export function defused(html: string): string {
  return html
    .replace(/<(\/?)style\b/gi, '<$1rpe-style')
    .replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])(style|on[a-z]+)(\s*=)/gi, '$1data-rpe-$2$3'));
}

function cardHtml(purify: DOMPurify, html: string): CardHtml {
  return withoutRemoteLoads(
    purify.sanitize(defused(html), {
      ADD_FORBID_CONTENTS: ['rpe-style'],
      RETURN_DOM_FRAGMENT: true,
      FORBID_TAGS,
      FORBID_ATTR,
      ALLOW_ARIA_ATTR: false,
      ALLOW_DATA_ATTR: false,
    }),
  );
}

/**
 * What DOMPurify left, made unable to reach out: links open apart and only to http(s) or mailto,
 * and anything that would load from an address loads nothing (a remote image becomes a link).
 */
export function withoutRemoteLoads(fragment: DocumentFragment): CardHtml {
  const notLoaded: string[] = [];
  for (const element of [...fragment.querySelectorAll('*')]) {
    if (element instanceof HTMLAnchorElement) {
      keepSafeLink(element);
      continue;
    }
    const remotes: { name: string; address: string }[] = [];
    for (const name of LOADING_ATTRIBUTES) {
      const value = element.getAttribute(name)?.trim();
      if (value === undefined) continue;
      const image = (name === 'src' && element instanceof HTMLImageElement) || (/^(xlink:)?href$/.test(name) && element.localName === 'image');
      if (image && DATA_IMAGE.test(value)) continue;
      element.removeAttribute(name);
      if (/^(https?:)?\/\//i.test(value)) remotes.push({ name, address: value.startsWith('//') ? `https:${value}` : value });
    }
    const picture = element instanceof HTMLImageElement ? remotes.find((r) => r.name === 'src')?.address : undefined;
    const shownThroughRelay = picture !== undefined && look().remoteImages;
    for (const { address } of remotes) if (!(shownThroughRelay && address === picture)) notLoaded.push(address);
    if (element instanceof HTMLImageElement && !element.hasAttribute('src')) element.replaceWith(shownThroughRelay ? remoteImage(element, picture) : imageNotLoaded(element, picture ?? remotes.at(-1)?.address));
  }
  return { fragment, notLoaded };
}

export function keepSafeLink(link: HTMLAnchorElement): void {
  const href = link.getAttribute('href')?.trim() ?? '';
  if (!SAFE_LINK.test(href)) link.removeAttribute('href');
  link.setAttribute('rel', 'noopener noreferrer nofollow');
  link.setAttribute('target', '_blank');
  link.setAttribute('referrerpolicy', 'no-referrer');
}

/** Remote pictures fetched through the relay, once each per page: object URLs, or why not. */
const fetched = new Map<string, Promise<string>>();

function fetchThroughRelay(address: string): Promise<string> {
  let url = fetched.get(address);
  if (!url) {
    // The relay's token module reads this browser's storage: loaded with the first remote picture.
    url = import('./relay-token.ts')
      .then(({ relayFetch }) => relayFetch(`/api/image?url=${encodeURIComponent(address)}`, { headers: { 'X-Roleplay-Engine': 'image' } }))
      .then(async (response) => {
        if (!response.ok) {
          const reason = ((await response.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message;
          throw new Error(reason ?? `HTTP ${response.status}`);
        }
        return URL.createObjectURL(await response.blob());
      });
    url.catch(() => fetched.delete(address));
    fetched.set(address, url);
  }
  return url;
}

/** A remote picture the player allowed: its own `img`, filled from the relay, or the link if it cannot be had. */
function remoteImage(original: HTMLImageElement, address: string): Node {
  const image = document.createElement('img');
  image.alt = original.getAttribute('alt')?.trim() ?? '';
  image.dataset.remote = address;
  for (const name of ['width', 'height'] as const) {
    const value = original.getAttribute(name);
    if (value && /^\d{1,4}$/.test(value)) image.setAttribute(name, value);
  }
  fetchThroughRelay(address).then(
    (src) => (image.src = src),
    (error: unknown) => {
      const link = imageNotLoaded(original, address);
      if (link instanceof HTMLAnchorElement) link.textContent = `${link.textContent!.replace(/ \(not loaded; opens in a new tab\)$/, '')} (could not be loaded: ${error instanceof Error ? error.message : String(error)})`;
      image.replaceWith(link);
    },
  );
  return image;
}

/** An image that was not loaded: a link to it when it had an address, else its description. */
function imageNotLoaded(image: HTMLImageElement, address: string | undefined): Node {
  const description = image.getAttribute('alt')?.trim();
  if (!address) return document.createTextNode(description ? `[${description}]` : '');
  let host: string;
  try {
    host = new URL(address).host;
  } catch {
    return document.createTextNode(description ? `[${description}]` : '');
  }
  const link = document.createElement('a');
  link.href = address;
  keepSafeLink(link);
  link.textContent = `${description ? `${description}: ` : ''}image from ${host} (not loaded; opens in a new tab)`;
  return link;
}
