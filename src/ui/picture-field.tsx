import { createResource, Show } from 'solid-js';
import { t } from './i18n/index.ts';
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
      <span class="label">{t('picture.picture')}</span>
      <div class="row">
        <Avatar client={props.client} name={props.name || '?'} hash={props.hash} size="large" />
        <FileButton label={busy() ? t('picture.storing') : props.hash ? t('picture.chooseAnother') : t('picture.choose')} accept="image/*" disabled={busy()} onFile={choose} />
        <Show when={props.hash}>
          <button type="button" class="quiet" onClick={() => props.onChange(null)}>
            {t('picture.generated')}
          </button>
        </Show>
      </div>
      <p class="hint">{t('picture.pictureHint')}</p>
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
      <span class="label">{t('picture.background')}</span>
      <div class="row">
        <Show when={props.hash} fallback={<span class="background-preview empty">{t('picture.none')}</span>}>
          {(hash) => <StoredPicture client={props.client} hash={hash()} class="background-preview" />}
        </Show>
        <FileButton label={busy() ? t('picture.storing') : props.hash ? t('picture.chooseAnotherBackground') : t('picture.chooseBackground')} accept="image/*" disabled={busy()} onFile={choose} />
        <Show when={props.hash}>
          <button type="button" class="quiet" onClick={() => props.onChange(null)}>
            {t('picture.removeBackground')}
          </button>
        </Show>
      </div>
      <p class="hint">{t('picture.backgroundHint')}</p>
      <ErrorNote message={error()} />
    </div>
  );
}
