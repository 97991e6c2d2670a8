import { createResource, For, onMount, Show } from 'solid-js';
import { describeFictionTime, type RewindImpact } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';
import { createAction } from '../action.ts';
import { ErrorNote } from '../error-note.tsx';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const signed = (n: number) => (n > 0 ? `+${n}` : `−${-n}`);

/** Every line of what the rewind will undo, as the player reads it. */
export function impactLines(impact: RewindImpact): string[] {
  const lines = [`${plural(impact.turnsHidden, 'turn')} will be hidden.`];
  if (impact.clock.from !== impact.clock.to) lines.push(`Clock: ${describeFictionTime(impact.clock.from)} → ${describeFictionTime(impact.clock.to)}`);
  if (impact.place.from !== impact.place.to) lines.push(`Place: ${impact.place.from ?? 'nowhere'} → ${impact.place.to ?? 'nowhere'}`);
  if (impact.scenesUndone > 0) lines.push(`${plural(impact.scenesUndone, 'scene change')} undone`);
  for (const f of impact.feelings) {
    const parts: string[] = [];
    if (f.affinity) parts.push(`affinity ${signed(f.affinity)}`);
    if (f.trust) parts.push(`trust ${signed(f.trust)}`);
    if (f.factsForgotten > 0) parts.push(`forgets ${plural(f.factsForgotten, 'fact')}`);
    lines.push(`${f.sourceName} → ${f.targetName}: ${parts.join(', ')}`);
  }
  for (const m of impact.memoriesForgotten) lines.push(`${m.name} forgets ${plural(m.count, 'memory', 'memories')}`);
  if (impact.pinsLost > 0) lines.push(`${plural(impact.pinsLost, 'pin')} lost`);
  return lines;
}

/**
 * "Rewind to here": what will be undone, measured by the engine doing the rewind and rolling it
 * back, then Rewind or Cancel. Esc cancels (the dialog's own cancel).
 */
export function RewindDialog(props: {
  client: AppClient;
  chatId: string;
  fromSeq: number;
  onClose: () => void;
  onRewound: (rewind: { seq: number; turns: number }) => void;
}) {
  let dialog: HTMLDialogElement | undefined;
  const [impact] = createResource(() => props.client.engine.previewRewind(props.chatId, props.fromSeq));
  const { run, busy, error } = createAction();
  onMount(() => dialog?.showModal());
  const confirm = () =>
    void run(async () => {
      const turns = impact()?.turnsHidden ?? 0;
      const { seq } = await props.client.engine.rewind(props.chatId, props.fromSeq);
      props.onRewound({ seq, turns });
    });
  return (
    <dialog
      ref={dialog}
      class="rewind-dialog"
      aria-labelledby="rewind-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="rewind-title">Rewind to here?</h2>
      <Show when={impact.error}>
        <p class="error" role="alert">
          {String((impact.error as Error)?.message ?? impact.error)}
        </p>
      </Show>
      <Show when={impact()} fallback={<Show when={!impact.error}><p class="muted">Working out what would change…</p></Show>}>
        {(shown) => (
          <>
            <ul class="impact" data-testid="rewind-impact">
              <For each={impactLines(shown())}>{(line) => <li>{line}</li>}</For>
            </ul>
            <p class="muted small-text">Nothing is deleted: the hidden turns can be restored later from the story.</p>
          </>
        )}
      </Show>
      <ErrorNote message={error()} />
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onClose()}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={!impact() || busy()} onClick={confirm}>
          Rewind
        </button>
      </div>
    </dialog>
  );
}
