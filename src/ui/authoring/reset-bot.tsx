import { createSignal, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { createAction } from '../action.ts';
import { ErrorNote } from '../error-note.tsx';

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
      <h2 id="reset-title">Start {props.name} over</h2>
      <p class="muted small-text">
        Forgets what {props.name} remembers and feels in every chat, and where and how each of those stories stands. Who {props.name} is, the relationship to you
        and the kickoff stay; earlier turns stay readable.
      </p>
      <div class="row">
        <button type="button" onClick={open} disabled={busy()}>
          Reset…
        </button>
        <Show when={done()}>
          <span role="status">{props.name} was reset; the story state before it is kept.</span>
          <button type="button" onClick={undo} disabled={busy()}>
            Undo reset
          </button>
        </Show>
      </div>
      <dialog ref={dialog} class="rewind-dialog" aria-labelledby="reset-dialog-title">
        <h2 id="reset-dialog-title">Reset {props.name}?</h2>
        <ul class="impact">
          <li>{props.name}'s memories and feelings, in every chat, are forgotten.</li>
          <li>In {props.name}'s chats, the scene, the places and who is doing what are cleared; the next message starts from the kickoff.</li>
          <li>The turns so far stay readable, behind a "before the reset" line, and are no longer sent to the narrator.</li>
          <li>Nothing is deleted: the reset can be undone.</li>
        </ul>
        <label class="stack">
          <span>
            Type <strong>{props.name}</strong> to confirm
          </span>
          <input aria-label="Bot name" value={typed()} onInput={(e) => setTyped(e.currentTarget.value)} autocomplete="off" />
        </label>
        <ErrorNote message={error()} />
        <div class="dialog-actions">
          <button type="button" onClick={() => dialog?.close()}>
            Cancel
          </button>
          <button type="button" class="danger" disabled={typed() !== props.name || busy()} onClick={reset}>
            Reset {props.name}
          </button>
        </div>
      </dialog>
    </section>
  );
}
