import { createResource, createSignal, For, Show } from 'solid-js';
import { describeFictionTime, type EditTarget, type ValueChangeEntry } from '../../../engine/for-ui.ts';
import { MenuButton } from '../../menu.tsx';
import { Modal } from '../../modal.tsx';
import type { DrawerScope } from './drawer-scope.ts';

const BY = { story: 'the story', player: 'you', opening: 'the opening scene' } as const;

/** What a change did, in a few words: "+5", "set to “tavern”", "added “Ada cannot swim.”". */
export function changeWords(entry: Pick<ValueChangeEntry, 'how' | 'value' | 'field'>, nameOf: (ref: string) => string): string {
  const value = entry.value;
  if (entry.field === 'holder') return `now with ${value ? nameOf(String(value)) : 'nobody'}`;
  if (entry.field === 'gone') return value ? 'gone from the story' : 'back in the story';
  const shown = (v: unknown) => {
    if (typeof v === 'number') return String(Math.round(v * 100) / 100);
    if (Array.isArray(v)) return v.length ? v.map((x) => `“${String(x)}”`).join(', ') : 'nothing';
    if (typeof v === 'string' && entry.field === 'fictionTime') return describeFictionTime(v);
    return v === '' ? 'nothing' : `“${String(v)}”`;
  };
  switch (entry.how) {
    case 'refused': {
      const refused = value as { value: string; reason: string };
      return `refused “${refused.value}”: ${refused.reason}`;
    }
    case 'delta':
      return typeof value === 'number' && value > 0 ? `+${shown(value)}` : shown(value);
    case 'add':
      return `added ${shown(value)}`;
    case 'create':
      return entry.field === 'status' ? 'opened' : `began as ${shown(value)}`;
    default:
      return `set to ${shown(value)}`;
  }
}

/**
 * A drawer value's menu (issue 33, part 1): "Why?" lists where the value came from, change by
 * change (the turn, the story or you, what it did), each with "Undo this change"; "Undo this
 * change" in the menu takes back the latest change still in force. Taking one back never rewinds:
 * the changes after it stay.
 */
export function ValueOrigin(props: { d: DrawerScope; target: EditTarget; field?: string; label: string }) {
  const d = props.d;
  const [open, setOpen] = createSignal(false);
  const [note, setNote] = createSignal<string | null>(null);
  const headingId = `why-${Math.random().toString(36).slice(2, 9)}`;
  const history = () => d.client.engine.valueHistory(d.chatId(), props.target, props.field);
  const undo = (entry: ValueChangeEntry) =>
    d.act(async () => {
      const { laterValueStands } = await d.client.engine.undoChange(d.chatId(), entry.eventId, entry.change);
      setNote(laterValueStands ? 'Taken back. A later change set it again, so that value stands.' : 'Taken back. The changes after it stay.');
      if (open()) void refetch();
    });
  const [entries, { refetch }] = createResource(open, async (isOpen) => (isOpen ? history() : []));
  const latest = async () => {
    const found = (await history()).find((e) => e.undoable);
    if (found) await undo(found);
    else setNote('There is no change to take back here.');
  };
  return (
    <>
      <MenuButton
        label={`About ${props.label}`}
        class="small quiet value-menu"
        title={`Where ${props.label} came from`}
        items={() => [
          { label: 'Why?', onSelect: () => (setNote(null), setOpen(true)), hint: 'the turns and edits that set it' },
          { label: 'Undo this change', onSelect: () => void latest(), hint: 'takes back the latest change to it, without rewinding' },
        ]}
      >
        ⋯
      </MenuButton>
      <Show when={note() && !open()}>
        <span class="small-text muted" role="status">
          {' '}
          {note()}
        </span>
      </Show>
      <Show when={open()}>
        <Modal title={`Why: ${props.label}`} id={headingId} class="rewind-dialog why-dialog" onClose={() => setOpen(false)}>
          <Show when={(entries() ?? []).length > 0} fallback={<p class="muted">{entries.loading ? 'Looking…' : 'Nothing has changed it since the story began.'}</p>}>
            <ol class="plain why-list">
              <For each={entries()}>
                {(entry) => (
                  <li data-testid="why-entry" classList={{ undone: entry.undone }}>
                    <span class="why-what">{changeWords(entry, d.name)}</span>{' '}
                    <span class="muted small-text">
                      by {BY[entry.by]}
                      <Show when={entry.turnNumber}>
                        {(n) => (
                          <>
                            {entry.by === 'player' ? ', after ' : ', at '}
                            <a href={`/chats/${d.chatId()}?turn=${entry.turnSeq}`} onClick={() => (setOpen(false), d.onGoToTurn())}>
                              turn {n()}
                            </a>
                          </>
                        )}
                      </Show>
                      <Show when={entry.undone}> · taken back</Show>
                    </span>{' '}
                    <Show when={entry.undoable}>
                      <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void undo(entry)}>
                        Undo this change
                      </button>
                    </Show>
                  </li>
                )}
              </For>
            </ol>
          </Show>
          <Show when={note()}>
            <p class="small-text" role="status">
              {note()}
            </p>
          </Show>
          <div class="button-row">
            <button type="button" class="small" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </Modal>
      </Show>
    </>
  );
}
