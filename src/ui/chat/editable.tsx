import { createSignal, For, type JSX, Show } from 'solid-js';
import { t } from '../i18n/index.ts';

/**
 * One drawer value that can be set by hand: shown as it is, with a small "Edit <label>" button;
 * editing shows a field with Save and Cancel (Enter saves, Esc cancels). A refused value keeps the
 * editor open with the engine's message beside it. "edited by you" marks a value set by hand.
 */
export function Editable<T>(props: {
  label: string;
  value: T;
  edited?: boolean;
  /** How the value reads when not editing. */
  children: JSX.Element;
  kind?: 'text' | 'long' | 'score' | 'significance' | 'datetime';
  save: (value: T) => Promise<unknown>;
  /** Shown after the edit button: a drawer value's menu ("Why?", "Undo this change"). */
  actions?: JSX.Element;
}) {
  const [draft, setDraft] = createSignal<string | null>(null);
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const open = () => {
    setError(null);
    setDraft(String(props.value ?? ''));
  };
  const commit = async () => {
    const text = draft();
    if (text === null) return;
    const value = (props.kind === 'score' || props.kind === 'significance' ? Number(text) : text) as T;
    setBusy(true);
    try {
      await props.save(value);
      setDraft(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const keys = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      setDraft(null);
    } else if (event.key === 'Enter' && (props.kind !== 'long' || event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void commit();
    }
  };
  const field = () => {
    const common = { 'aria-label': props.label, 'aria-invalid': error() ? ('true' as const) : undefined, onKeyDown: keys };
    switch (props.kind) {
      case 'long':
        return <textarea {...common} rows={3} value={draft() ?? ''} ref={(el) => queueMicrotask(() => el.focus())} onInput={(e) => setDraft(e.currentTarget.value)} />;
      case 'score':
        return (
          <span class="score-editor">
            <input {...common} type="range" min={0} max={100} step={1} value={draft() ?? ''} onInput={(e) => setDraft(e.currentTarget.value)} />
            <input aria-label={t('edit.asNumber', props.label)} type="number" min={0} max={100} value={draft() ?? ''} onInput={(e) => setDraft(e.currentTarget.value)} onKeyDown={keys} />
          </span>
        );
      case 'significance':
        return (
          <select {...common} value={draft() ?? ''} onChange={(e) => setDraft(e.currentTarget.value)} ref={(el) => queueMicrotask(() => el.focus())}>
            <For each={['0', '1', '2', '3'] as const}>{(level) => <option value={level}>{`${level} · ${t(`edit.significance.${level}`)}`}</option>}</For>
          </select>
        );
      case 'datetime':
        // The story's clock as the browser's date and time picker shows it (minutes: seconds dropped).
        return (
          <input
            {...common}
            type="datetime-local"
            value={(draft() ?? '').slice(0, 16)}
            ref={(el) => queueMicrotask(() => el.focus())}
            onInput={(e) => setDraft(e.currentTarget.value ? `${e.currentTarget.value}:00`.slice(0, 19) : '')}
          />
        );
      default:
        return <input {...common} value={draft() ?? ''} ref={(el) => queueMicrotask(() => el.focus())} onInput={(e) => setDraft(e.currentTarget.value)} />;
    }
  };
  return (
    <Show
      when={draft() !== null}
      fallback={
        <span class="editable">
          {props.children}
          <Show when={props.edited}>
            <span class="edited-mark" title={t('edit.setByHand')}>
              {' '}
              {t('edit.editedByYou')}
            </span>
          </Show>
          <button type="button" class="small quiet edit-button" aria-label={t('edit.edit', props.label)} title={t('edit.edit', props.label)} onClick={open}>
            ✎
          </button>
          {props.actions}
        </span>
      }
    >
      <span class="editor" role="group" aria-label={t('edit.editing', props.label)}>
        {field()}
        <button type="button" class="small" onClick={() => void commit()} disabled={busy()}>
          {t('edit.save')}
        </button>
        <button type="button" class="small quiet" onClick={() => setDraft(null)}>
          {t('edit.cancel')}
        </button>
        <Show when={error()}>
          {(message) => (
            <span class="error small-text" role="alert">
              {message()}
            </span>
          )}
        </Show>
      </span>
    </Show>
  );
}
