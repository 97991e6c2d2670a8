import { createResource, createSignal, For, Show } from 'solid-js';
import type { EditTarget, ValueChangeEntry } from '../../../engine/for-ui.ts';
import { formatStoryTime } from '../../i18n/format.ts';
import { t } from '../../i18n/index.ts';
import { MenuButton } from '../../menu.tsx';
import { Modal } from '../../modal.tsx';
import type { DrawerScope } from './drawer-scope.ts';

/** What a change did, in a few words: "+5", "set to “tavern”", "added “Ada cannot swim.”". */
export function changeWords(entry: Pick<ValueChangeEntry, 'how' | 'value' | 'field'>, nameOf: (ref: string) => string): string {
  const value = entry.value;
  if (entry.field === 'holder') return t('origin.nowWith', value ? nameOf(String(value)) : t('origin.nobody'));
  if (entry.field === 'gone') return value ? t('origin.gone') : t('origin.back');
  const shown = (v: unknown) => {
    if (typeof v === 'number') return String(Math.round(v * 100) / 100);
    if (Array.isArray(v)) return v.length ? v.map((x) => `“${String(x)}”`).join(', ') : t('origin.nothing');
    if (typeof v === 'string' && entry.field === 'fictionTime') return formatStoryTime(v);
    return v === '' ? t('origin.nothing') : `“${String(v)}”`;
  };
  switch (entry.how) {
    case 'refused': {
      const refused = value as { value: string; reason: string };
      return t('origin.refused', refused.value, refused.reason);
    }
    case 'delta':
      return typeof value === 'number' && value > 0 ? `+${shown(value)}` : shown(value);
    case 'add':
      return t('origin.added', shown(value));
    case 'create':
      return entry.field === 'status' ? t('origin.opened') : t('origin.began', shown(value));
    default:
      return t('origin.set', shown(value));
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
      setNote(laterValueStands ? t('origin.takenBackLater') : t('origin.takenBack'));
      if (open()) void refetch();
    });
  const [entries, { refetch }] = createResource(open, async (isOpen) => (isOpen ? history() : []));
  const latest = async () => {
    const found = (await history()).find((e) => e.undoable);
    if (found) await undo(found);
    else setNote(t('origin.nothingToUndo'));
  };
  return (
    <>
      <MenuButton
        label={t('origin.about', props.label)}
        class="small quiet value-menu"
        title={t('origin.whereFrom', props.label)}
        items={() => [
          { label: t('origin.why'), onSelect: () => (setNote(null), setOpen(true)), hint: t('origin.whyHint') },
          { label: t('origin.undo'), onSelect: () => void latest(), hint: t('origin.undoHint') },
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
        <Modal title={t('origin.whyTitle', props.label)} id={headingId} class="rewind-dialog why-dialog" onClose={() => setOpen(false)}>
          <Show when={(entries() ?? []).length > 0} fallback={<p class="muted">{entries.loading ? t('origin.looking') : t('origin.unchanged')}</p>}>
            <ol class="plain why-list">
              <For each={entries()}>
                {(entry) => (
                  <li data-testid="why-entry" classList={{ undone: entry.undone }}>
                    <span class="why-what">{changeWords(entry, d.name)}</span>{' '}
                    <span class="muted small-text">
                      {t('origin.byWhom', t(`origin.by.${entry.by}`))}
                      <Show when={entry.turnNumber}>
                        {(n) => (
                          <>
                            {entry.by === 'player' ? t('origin.after') : t('origin.at')}
                            <a href={`/chats/${d.chatId()}?turn=${entry.turnSeq}`} onClick={() => (setOpen(false), d.onGoToTurn())}>
                              {t('origin.turn', n())}
                            </a>
                          </>
                        )}
                      </Show>
                      <Show when={entry.undone}>{t('origin.takenBackMark')}</Show>
                    </span>{' '}
                    <Show when={entry.undoable}>
                      <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void undo(entry)}>
                        {t('origin.undo')}
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
              {t('origin.close')}
            </button>
          </div>
        </Modal>
      </Show>
    </>
  );
}
