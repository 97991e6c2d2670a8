import { downloadBlob } from '../backup-file.ts';
import { A, useLocation, useNavigate, useParams } from '@solidjs/router';
import { createMemo, createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { ErrorNote } from '../error-note.tsx';
import { Modal } from '../modal.tsx';
import { createLiveQuery } from '../live-query.ts';
import type { LoreEntry, LorebookRef } from '../../engine/for-ui.ts';

type Entry = LoreEntry & { edited: boolean };

const LOGIC_WORDS: Record<LoreEntry['logic'], string> = {
  and_any: 'and any of',
  and_all: 'and all of',
  not_any: 'and none of',
  not_all: 'and not all of',
};

/** What the player calls an entry: its name, else its keys. */
const titleOf = (entry: LoreEntry) => entry.name?.trim() || entry.keys.join(', ') || `Entry ${entry.position + 1}`;
const keysFrom = (text: string) =>
  text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/** One entry's form: its words, keys and when it fires. Saved as a whole entry, in place of the old one. */
function EntryForm(props: { entry: Entry; onSave: (entry: LoreEntry) => Promise<void>; onCancel: () => void }) {
  const { run, busy, error } = createAction();
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '');
    const { edited: _edited, ...entry } = props.entry;
    const secondaryKeys = keysFrom(text('secondaryKeys'));
    void run(() =>
      props.onSave({
        ...entry,
        name: text('name').trim(),
        keys: keysFrom(text('keys')),
        secondaryKeys,
        selective: secondaryKeys.length > 0,
        logic: text('logic') as LoreEntry['logic'],
        content: text('content'),
        constant: form.has('constant'),
        placement: text('placement') as LoreEntry['placement'],
        insertionOrder: Number(text('insertionOrder')),
        useProbability: form.has('useProbability'),
        probability: Number(text('probability')),
        wholeWords: form.has('wholeWords'),
        caseSensitive: form.has('caseSensitive'),
      }),
    );
  };
  return (
    <form class="stack lore-form" onSubmit={submit} aria-label={`Edit ${titleOf(props.entry)}`}>
      <label class="stack">
        Name
        <input name="name" value={props.entry.name ?? ''} maxLength={200} />
      </label>
      <label class="stack">
        Keys <span class="muted small-text">(separated by commas; /…/ for an expression)</span>
        <input name="keys" value={props.entry.keys.join(', ')} />
      </label>
      <div class="row wrap">
        <label class="stack">
          Secondary keys must match
          <select name="logic">
            <For each={Object.entries(LOGIC_WORDS)}>
              {([value, words]) => (
                <option value={value} selected={value === props.entry.logic}>
                  {words}
                </option>
              )}
            </For>
          </select>
        </label>
        <label class="stack grow">
          Secondary keys
          <input name="secondaryKeys" value={props.entry.secondaryKeys.join(', ')} />
        </label>
      </div>
      <label class="stack">
        Content
        <textarea name="content" rows={5} maxLength={50_000} value={props.entry.content} />
      </label>
      <div class="row wrap">
        <label class="stack">
          Placement
          <select name="placement">
            <option value="before_char" selected={props.entry.placement === 'before_char'}>
              Before the character
            </option>
            <option value="after_char" selected={props.entry.placement === 'after_char'}>
              After the character
            </option>
          </select>
        </label>
        <label class="stack">
          Order
          <input name="insertionOrder" type="number" step="1" value={props.entry.insertionOrder} />
        </label>
        <label class="stack">
          Chance (%)
          <input name="probability" type="number" min="0" max="100" value={props.entry.probability} />
        </label>
      </div>
      <div class="row wrap">
        <label class="check-row">
          <input type="checkbox" name="constant" checked={props.entry.constant} /> Always on
        </label>
        <label class="check-row">
          <input type="checkbox" name="useProbability" checked={props.entry.useProbability} /> Use the chance
        </label>
        <label class="check-row">
          <input type="checkbox" name="wholeWords" checked={props.entry.wholeWords} /> Whole words
        </label>
        <label class="check-row">
          <input type="checkbox" name="caseSensitive" checked={props.entry.caseSensitive} /> Match case
        </label>
      </div>
      <ErrorNote message={error()} />
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onCancel()}>
          Cancel
        </button>
        <button type="submit" class="primary-action" disabled={busy()}>
          Save entry
        </button>
      </div>
    </form>
  );
}

/**
 * A lorebook's entries: each with its keys, its words and when it fires, turned on or off with a
 * click, edited in place. A card book's edits are read over the card as it came (an exported card
 * carries the card's own book).
 */
export function LorebookPage() {
  const client = useClient();
  const params = useParams<{ id: string }>();
  const location = useLocation();
  const ref = createMemo((): LorebookRef => (location.pathname.startsWith('/lore/bot/') ? { botId: params.id } : { lorebookId: params.id }));
  const book = createLiveQuery(client, { query: 'lorebook' }, () => client.engine.lorebook(ref()));
  const { run, busy, error } = createAction();
  const [editing, setEditing] = createSignal<number | null>(null);
  const [find, setFind] = createSignal('');
  const [confirmDelete, setConfirmDelete] = createSignal(false);
  const navigate = useNavigate();
  const remove = (lorebookId: string) =>
    void run(async () => {
      await client.engine.removeLorebook(lorebookId);
      navigate('/lore', { replace: true });
    });
  const save = (entry: LoreEntry) => client.engine.saveLoreEntry(ref(), entry);
  /** A blank entry at the end, opened in the editor. */
  const addEntry = () =>
    void run(async () => {
      setFind('');
      setEditing(await client.engine.addLoreEntry(ref()));
    });
  /** The book as SillyTavern world info, the edits in: importing it again gives the same entries. */
  const exportWorldInfo = () =>
    void run(async () => {
      const file = await client.engine.lorebookAsWorldInfo(ref());
      if (file) downloadBlob(new Blob([file.text], { type: 'application/json' }), file.fileName);
    });
  const shown = () => {
    const needle = find().trim().toLowerCase();
    const entries = book()?.entryList ?? [];
    return needle ? entries.filter((e) => `${titleOf(e)} ${e.keys.join(' ')} ${e.content}`.toLowerCase().includes(needle)) : entries;
  };
  return (
    <section aria-labelledby="lorebook-title">
      <p>
        <A href="/lore">← Lore</A>
      </p>
      <Show when={book() !== undefined} fallback={<p class="muted">Loading…</p>}>
        <Show when={book()} fallback={<p class="muted">This lorebook is not here (it may have gone with its bot).</p>}>
          {(b) => (
            <>
              <div class="title-row">
                <h1 id="lorebook-title">{b().name}</h1>
                <div class="row">
                  <button type="button" class="quiet" disabled={busy()} onClick={addEntry}>
                    Add entry
                  </button>
                  <button type="button" class="quiet" disabled={busy()} onClick={exportWorldInfo}>
                    Export as world info
                  </button>
                  <Show when={'lorebookId' in b().ref}>
                    <button type="button" class="quiet" onClick={() => setConfirmDelete(true)}>
                      Delete lorebook
                    </button>
                  </Show>
                </div>
              </div>
              <Show when={confirmDelete()}>
                <Modal title={`Delete ${b().name}?`} id="delete-lorebook-title" onClose={() => setConfirmDelete(false)}>
                  <p>It leaves the Lore page and every chat it is attached to. Stories already told keep what it gave them.</p>
                  <ErrorNote message={error()} />
                  <div class="dialog-actions">
                    <button type="button" onClick={() => setConfirmDelete(false)}>
                      Cancel
                    </button>
                    <button type="button" class="primary-action danger" disabled={busy()} onClick={() => remove((b().ref as { lorebookId: string }).lorebookId)}>
                      Delete
                    </button>
                  </div>
                </Modal>
              </Show>
              <p class="muted small-text">
                {b().kind === 'card' ? 'From a bot’s card, always on in its chats' : 'Attach it to a chat from the chat’s Story state'}
                {' · '}scans the newest {b().settings.scanDepth === 1 ? 'message' : `${b().settings.scanDepth} messages`}
                {' · '}up to {b().settings.tokenBudget.toLocaleString()} tokens{b().settings.recursive ? ' · entries can fire each other' : ''}
              </p>
              <input type="search" class="chat-search" aria-label="Find an entry" placeholder="Find an entry" value={find()} onInput={(e) => setFind(e.currentTarget.value)} />
              <ErrorNote message={error()} />
              <ul class="lore-entries plain" aria-label="Entries">
                <For each={shown()}>
                  {(entry) => (
                    <li class="card lore-entry" classList={{ off: !entry.enabled }}>
                      <div class="title-row">
                        <strong>{titleOf(entry)}</strong>
                        <div class="row">
                          <Show when={entry.edited}>
                            <span class="muted small-text">edited</span>
                          </Show>
                          <label class="check-row small-text">
                            <input
                              type="checkbox"
                              aria-label={`${titleOf(entry)} on`}
                              checked={entry.enabled}
                              disabled={busy()}
                              onChange={(e) => {
                                const { edited: _edited, ...plain } = entry;
                                void run(() => save({ ...plain, enabled: e.currentTarget.checked }));
                              }}
                            />
                            On
                          </label>
                          <button type="button" class="small" aria-label={`Edit ${titleOf(entry)}`} onClick={() => setEditing(entry.position)}>
                            Edit
                          </button>
                        </div>
                      </div>
                      <Show
                        when={editing() === entry.position}
                        fallback={
                          <>
                            <p class="small-text">
                              <Show when={entry.constant} fallback={<>Keys: {entry.keys.join(', ') || 'none'}</>}>
                                Always on
                              </Show>
                              <Show when={entry.secondaryKeys.length > 0}>
                                {' '}
                                {LOGIC_WORDS[entry.logic]} {entry.secondaryKeys.join(', ')}
                              </Show>
                              {' · '}
                              {entry.placement === 'after_char' ? 'after' : 'before'} the character · order {entry.insertionOrder}
                              <Show when={entry.useProbability}> · {entry.probability} % chance</Show>
                            </p>
                            <For each={entry.keyProblems}>
                              {(refused) => (
                                <p class="error small-text" data-testid="key-problem">
                                  Key {refused.key} never fires: {refused.problem}
                                </p>
                              )}
                            </For>
                            <p class="clamp lore-content">{entry.content}</p>
                          </>
                        }
                      >
                        <EntryForm
                          entry={entry}
                          onCancel={() => setEditing(null)}
                          onSave={async (edited) => {
                            await save(edited);
                            setEditing(null);
                          }}
                        />
                      </Show>
                    </li>
                  )}
                </For>
              </ul>
            </>
          )}
        </Show>
      </Show>
    </section>
  );
}
