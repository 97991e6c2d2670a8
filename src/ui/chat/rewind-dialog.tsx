import { createResource, For, onMount, Show } from 'solid-js';
import type { RewindImpact } from '../../engine/for-ui.ts';
import { formatStoryTime } from '../i18n/format.ts';
import { t } from '../i18n/index.ts';
import type { AppClient } from '../engine-client.ts';
import { createAction } from '../action.ts';
import { ErrorNote } from '../error-note.tsx';

const signed = (n: number) => (n > 0 ? `+${n}` : `−${-n}`);

/** Every line of what the rewind will undo, as the player reads it. */
export function impactLines(impact: RewindImpact): string[] {
  const lines = [t('rewind.turnsHidden', impact.turnsHidden)];
  if (impact.clock.from !== impact.clock.to) lines.push(t('rewind.clock', formatStoryTime(impact.clock.from), formatStoryTime(impact.clock.to)));
  if (impact.place.from !== impact.place.to) lines.push(t('rewind.place', impact.place.from ?? t('rewind.nowhere'), impact.place.to ?? t('rewind.nowhere')));
  if (impact.scenesUndone > 0) lines.push(t('rewind.scenesUndone', impact.scenesUndone));
  for (const f of impact.feelings) {
    const parts: string[] = [];
    if (f.affinity) parts.push(t('rewind.affinity', signed(f.affinity)));
    if (f.trust) parts.push(t('rewind.trust', signed(f.trust)));
    if (f.factsForgotten > 0) parts.push(t('rewind.factsForgotten', f.factsForgotten));
    lines.push(`${f.sourceName} → ${f.targetName}: ${parts.join(t('rewind.comma'))}`);
  }
  for (const m of impact.memoriesForgotten) lines.push(t('rewind.memoriesForgotten', m.name, m.count));
  if (impact.pinsLost > 0) lines.push(t('rewind.pinsLost', impact.pinsLost));
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
      <h2 id="rewind-title">{t('rewind.title')}</h2>
      <Show when={impact.error}>
        <p class="error" role="alert">
          {String((impact.error as Error)?.message ?? impact.error)}
        </p>
      </Show>
      <Show when={impact()} fallback={<Show when={!impact.error}><p class="muted">{t('rewind.working')}</p></Show>}>
        {(shown) => (
          <>
            <ul class="impact" data-testid="rewind-impact">
              <For each={impactLines(shown())}>{(line) => <li>{line}</li>}</For>
            </ul>
            <p class="muted small-text">{t('rewind.nothingDeleted')}</p>
          </>
        )}
      </Show>
      <ErrorNote message={error()} />
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onClose()}>
          {t('edit.cancel')}
        </button>
        <button type="button" class="danger" disabled={!impact() || busy()} onClick={confirm}>
          {t('rewind.rewind')}
        </button>
      </div>
    </dialog>
  );
}
