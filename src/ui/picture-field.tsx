import { createResource, Show } from 'solid-js';
import { createAction } from './action.ts';
import { Avatar, pictureUrl } from './avatar.tsx';
import { FileButton } from './file-input.tsx';
import type { AppClient } from './engine-client.ts';
import { prepareBackground, preparePicture } from './picture-input.ts';
import { ErrorNote } from './error-note.tsx';

/**
 * "Picture" on a bot's form and on yours: the face as it shows, a file chooser that stores the
 * cropped and resized picture at once, and "Use a generated face" to go back to initials.
 */
export function PictureField(props: { client: AppClient; name: string; hash: string | null; onChange: (hash: string | null) => void }) {
  const { run, busy, error } = createAction();
  const choose = (file: File) => void run(async () => props.onChange(await props.client.engine.addImage(await preparePicture(file))));
  return (
    <div class="field picture-field">
      <span class="label">Picture</span>
      <div class="row">
        <Avatar client={props.client} name={props.name || '?'} hash={props.hash} size="large" />
        <FileButton label={busy() ? 'Storing…' : props.hash ? 'Choose another picture…' : 'Choose a picture…'} accept="image/*" disabled={busy()} onFile={choose} />
        <Show when={props.hash}>
          <button type="button" class="quiet" onClick={() => props.onChange(null)}>
            Use a generated face
          </button>
        </Show>
      </div>
      <p class="hint">Cropped to a square and resized to 512 px here, in your browser.</p>
      <ErrorNote message={error()} />
    </div>
  );
}

/** A stored picture shown whole and small (a background's preview); nothing while it loads. */
export function StoredPicture(props: { client: AppClient; hash: string; class: string }) {
  const [url] = createResource(
    () => props.hash,
    (hash) => pictureUrl(props.client, hash),
  );
  return <Show when={url()}>{(src) => <img class={props.class} src={src()} alt="" />}</Show>;
}

/**
 * "Background" on a bot's form: the picture behind the story in its chats (a card brings its own),
 * a file chooser that stores it fitted to 1920 px, and "Remove background".
 */
export function BackgroundField(props: { client: AppClient; hash: string | null; onChange: (hash: string | null) => void }) {
  const { run, busy, error } = createAction();
  const choose = (file: File) => void run(async () => props.onChange(await props.client.engine.addImage(await prepareBackground(file))));
  return (
    <div class="field background-field">
      <span class="label">Background</span>
      <div class="row">
        <Show when={props.hash} fallback={<span class="background-preview empty">None</span>}>
          {(hash) => <StoredPicture client={props.client} hash={hash()} class="background-preview" />}
        </Show>
        <FileButton label={busy() ? 'Storing…' : props.hash ? 'Choose another background…' : 'Choose a background…'} accept="image/*" disabled={busy()} onFile={choose} />
        <Show when={props.hash}>
          <button type="button" class="quiet" onClick={() => props.onChange(null)}>
            Remove background
          </button>
        </Show>
      </div>
      <p class="hint">Shown dimmed behind the story in this bot’s chats (a chat can choose its own). Settings → Look turns backgrounds off on this device.</p>
      <ErrorNote message={error()} />
    </div>
  );
}
