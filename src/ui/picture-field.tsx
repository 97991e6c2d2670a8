import { Show } from 'solid-js';
import { createAction } from './action.ts';
import { Avatar } from './avatar.tsx';
import { FileButton } from './file-input.tsx';
import type { AppClient } from './engine-client.ts';
import { preparePicture } from './picture-input.ts';
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
