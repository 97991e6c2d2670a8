import { createSignal, Show } from 'solid-js';
import { Avatar } from './avatar.tsx';
import type { AppClient } from './engine-client.ts';
import { preparePicture } from './picture-input.ts';
import { ErrorNote } from './error-note.tsx';

/**
 * "Picture" on a bot's form and on yours: the face as it shows, a file chooser that stores the
 * cropped and resized picture at once, and "Use a generated face" to go back to initials.
 */
export function PictureField(props: { client: AppClient; name: string; hash: string | null; onChange: (hash: string | null) => void }) {
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const choose = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setBusy(true);
    try {
      props.onChange(await props.client.engine.addImage(await preparePicture(file)));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="field picture-field">
      <span class="label">Picture</span>
      <div class="row">
        <Avatar client={props.client} name={props.name || '?'} hash={props.hash} size="large" />
        <label class="button">
          {busy() ? 'Storing…' : props.hash ? 'Choose another picture…' : 'Choose a picture…'}
          <input
            type="file"
            accept="image/*"
            class="visually-hidden"
            disabled={busy()}
            onChange={(e) => {
              void choose(e.currentTarget.files?.[0]);
              e.currentTarget.value = '';
            }}
          />
        </label>
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
