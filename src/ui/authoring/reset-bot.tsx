import { createSignal, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { createAction } from '../action.ts';
import { ErrorNote } from '../error-note.tsx';
import { t } from '../i18n/index.ts';

/**
 * "Reset…" on a bot's page: a dialog that says what goes and what stays, with its button enabled
 * only once the bot's exact name is typed. After it, Undo reset brings everything back.
 */
export function ResetBot(props: { client: AppClient; botId: string; name: string; wasReset: boolean }) {
  let dialog: HTMLDialogElement | undefined;
  const [typed, setTyped] = createSignal('');
  const [done, setDone] = createSignal(props.wasReset);
  const { run, busy, error } = createAction();
  const open = () => {
    setTyped('');
    dialog?.showModal();
  };
  const reset = () =>
    void run(async () => {
      await props.client.engine.resetBot(props.botId, typed());
      dialog?.close();
      setDone(true);
    });
  const undo = () =>
    void run(async () => {
      await props.client.engine.undoBotReset(props.botId);
      setDone(false);
    });
  return (
    <section class="danger-zone" aria-labelledby="reset-title">
      <h2 id="reset-title">{t('reset.title', props.name)}</h2>
      <p class="muted small-text">
        {t('reset.about', props.name)}
      </p>
      <div class="row">
        <button type="button" onClick={open} disabled={busy()}>
          {t('reset.reset')}
        </button>
        <Show when={done()}>
          <span role="status">{t('reset.done', props.name)}</span>
          <button type="button" onClick={undo} disabled={busy()}>
            {t('reset.undo')}
          </button>
        </Show>
      </div>
      <dialog ref={dialog} class="rewind-dialog" aria-labelledby="reset-dialog-title">
        <h2 id="reset-dialog-title">{t('reset.ask', props.name)}</h2>
        <ul class="impact">
          <li>{t('reset.line1', props.name)}</li>
          <li>{t('reset.line2', props.name)}</li>
          <li>{t('reset.line3')}</li>
          <li>{t('reset.line4')}</li>
        </ul>
        <label class="stack">
          <span>
            {t('reset.typeBefore')}
            <strong>{props.name}</strong>
            {t('reset.typeAfter')}
          </span>
          <input aria-label={t('reset.botName')} value={typed()} onInput={(e) => setTyped(e.currentTarget.value)} autocomplete="off" />
        </label>
        <ErrorNote message={error()} />
        <div class="dialog-actions">
          <button type="button" onClick={() => dialog?.close()}>
            {t('edit.cancel')}
          </button>
          <button type="button" class="danger" disabled={typed() !== props.name || busy()} onClick={reset}>
            {t('reset.confirm', props.name)}
          </button>
        </div>
      </dialog>
    </section>
  );
}
