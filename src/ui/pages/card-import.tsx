import { createResource, createSignal, For, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { Modal } from '../modal.tsx';
import { prepareBackground, preparePicture } from '../picture-input.ts';
import { readCardFile } from '../card-reader.ts';
import { t } from '../i18n/index.ts';

/**
 * "Import card": what the card holds, shown before anything is saved (its picture, name,
 * description, greetings and lorebook entries, and what was odd about it). A card whose bot is
 * here already is updated or kept beside it, as the player says: never overwritten silently.
 */
export function CardImport(props: { client: AppClient; file: File; existing: { id: string; name: string }[]; onClose: () => void; onImported: (botId: string, name: string) => void }) {
  const [card] = createResource(
    () => props.file,
    (file) => readCardFile(file).catch((error: unknown) => ({ failure: error instanceof Error ? error.message : String(error) })),
  );
  const [name, setName] = createSignal<string | null>(null);
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const loaded = () => {
    const value = card();
    return value && !('failure' in value) ? value : null;
  };
  const chosenName = () => (name() ?? loaded()?.bot.name ?? '').trim();
  const twin = () => props.existing.find((b) => b.name.toLowerCase() === chosenName().toLowerCase());
  const picture = () => {
    const bytes = loaded()?.read.picture;
    return bytes ? URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>])) : null;
  };

  const save = async (update: string | null) => {
    const shown = loaded();
    if (!shown) return;
    setError(null);
    setBusy(true);
    try {
      let avatar: string | undefined;
      if (shown.read.picture) {
        try {
          avatar = await props.client.engine.addImage(await preparePicture(new Blob([shown.read.picture as Uint8Array<ArrayBuffer>])));
        } catch {
          // A card whose art does not decode is still a card: it gets a generated face.
        }
      }
      let background: string | undefined;
      if (shown.read.background) {
        try {
          background = await props.client.engine.addImage(await prepareBackground(new Blob([shown.read.background as Uint8Array<ArrayBuffer>])));
        } catch {
          // The same for a background that does not decode: the card comes without it.
        }
      }
      const { cut: _cut, ...fields } = shown.bot;
      const botId = await props.client.engine.importCard(
        { fields: { ...fields, name: chosenName(), ...(avatar ? { avatar } : {}), ...(background ? { background } : {}) }, card: shown.read.card.original, spec: shown.read.card.spec, format: shown.read.format },
        update,
      );
      props.onImported(botId, chosenName());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title={t('imports.cardAsk')} id="card-import-title" onClose={props.onClose}>
      <Show when={card()} fallback={<p class="muted">{t('imports.reading', props.file.name)}</p>}>
        {(value) => (
          <Show when={loaded()} fallback={<ErrorNote message={'failure' in value() ? (value() as { failure: string }).failure : null} />}>
            {(shown) => (
              <div class="stack card-preview" data-testid="card-preview">
                <div class="row">
                  <Show when={picture()}>{(src) => <img class="avatar large" src={src()} alt="" />}</Show>
                  <label class="stack grow">
                    {t('settings.name')}
                    <input value={chosenName()} maxLength={80} onInput={(e) => setName(e.currentTarget.value)} aria-label={t('settings.name')} />
                  </label>
                </div>
                <p class="muted small-text">
                  {t('imports.cardFrom', shown().read.card.spec.slice(-2).toUpperCase(), shown().read.format.toUpperCase())}
                  {' · '}
                  {t('imports.greetings', shown().bot.greetings.length)}
                  {' · '}
                  {t('imports.loreEntries', shown().read.card.data.book?.entries.length ?? 0)}
                  {shown().read.background ? t('imports.background') : ''}
                </p>
                <p class="clamp card-description">{shown().read.card.data.description || t('imports.noDescription')}</p>
                <Show when={[...shown().read.warnings, ...shown().bot.cut].length > 0}>
                  <ul class="small-text warnings">
                    <For each={[...shown().read.warnings, ...shown().bot.cut]}>{(warning) => <li>{warning}</li>}</For>
                  </ul>
                </Show>
                <ErrorNote message={error()} />
                <div class="dialog-actions">
                  <button type="button" onClick={() => props.onClose()}>
                    {t('edit.cancel')}
                  </button>
                  <Show
                    when={twin()}
                    fallback={
                      <button type="button" class="primary-action" disabled={busy() || !chosenName()} onClick={() => void save(null)}>
                        {t('imports.import')}
                      </button>
                    }
                  >
                    {(existing) => (
                      <>
                        <button type="button" disabled={busy()} onClick={() => void save(null)}>
                          {t('imports.keepBoth')}
                        </button>
                        <button type="button" class="primary-action" disabled={busy()} onClick={() => void save(existing().id)}>
                          {t('imports.update', existing().name)}
                        </button>
                      </>
                    )}
                  </Show>
                </div>
              </div>
            )}
          </Show>
        )}
      </Show>
    </Modal>
  );
}
