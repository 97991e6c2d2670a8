import { downloadBlob } from '../backup-file.ts';
import { A, useLocation, useNavigate, useParams } from '@solidjs/router';
import { createMemo, createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { ErrorNote } from '../error-note.tsx';
import { Modal } from '../modal.tsx';
import { createLiveQuery } from '../live-query.ts';
import type { LoreEntry, LorebookRef } from '../../engine/for-ui.ts';
import { t } from '../i18n/index.ts';

type Entry = LoreEntry & { edited: boolean };

const LOGICS: LoreEntry['logic'][] = ['and_any', 'and_all', 'not_any', 'not_all'];
const logicWords = (logic: LoreEntry['logic']) => t(`lore.logic.${logic}`);

/** What the player calls an entry: its name, else its keys. */
const titleOf = (entry: LoreEntry) => entry.name?.trim() || entry.keys.join(', ') || t('lore.entry', entry.position + 1);
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
    <form class="stack lore-form" onSubmit={submit} aria-label={t('edit.edit', titleOf(props.entry))}>
      <label class="stack">
        {t('settings.name')}
        <input name="name" value={props.entry.name ?? ''} maxLength={200} />
      </label>
      <label class="stack">
        {t('lore.keys')} <span class="muted small-text">{t('lore.keysHint')}</span>
        <input name="keys" value={props.entry.keys.join(', ')} />
      </label>
      <div class="row wrap">
        <label class="stack">
          {t('lore.secondaryMust')}
          <select name="logic">
            <For each={LOGICS.map((value) => [value, logicWords(value)] as const)}>
              {([value, words]) => (
                <option value={value} selected={value === props.entry.logic}>
                  {words}
                </option>
              )}
            </For>
          </select>
        </label>
        <label class="stack grow">
          {t('lore.secondary')}
          <input name="secondaryKeys" value={props.entry.secondaryKeys.join(', ')} />
        </label>
      </div>
      <label class="stack">
        {t('lore.content')}
        <textarea name="content" rows={5} maxLength={50_000} value={props.entry.content} />
      </label>
      <div class="row wrap">
        <label class="stack">
          {t('lore.placement')}
          <select name="placement">
            <option value="before_char" selected={props.entry.placement === 'before_char'}>
              {t('lore.beforeChar')}
            </option>
            <option value="after_char" selected={props.entry.placement === 'after_char'}>
              {t('lore.afterChar')}
            </option>
          </select>
        </label>
        <label class="stack">
          {t('lore.order')}
          <input name="insertionOrder" type="number" step="1" value={props.entry.insertionOrder} />
        </label>
        <label class="stack">
          {t('lore.chance')}
          <input name="probability" type="number" min="0" max="100" value={props.entry.probability} />
        </label>
      </div>
      <div class="row wrap">
        <label class="check-row">
          <input type="checkbox" name="constant" checked={props.entry.constant} /> {t('lore.alwaysOn')}
        </label>
        <label class="check-row">
          <input type="checkbox" name="useProbability" checked={props.entry.useProbability} /> {t('lore.useChance')}
        </label>
        <label class="check-row">
          <input type="checkbox" name="wholeWords" checked={props.entry.wholeWords} /> {t('lore.wholeWords')}
        </label>
        <label class="check-row">
          <input type="checkbox" name="caseSensitive" checked={props.entry.caseSensitive} /> {t('lore.matchCase')}
        </label>
      </div>
      <ErrorNote message={error()} />
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onCancel()}>
          {t('edit.cancel')}
        </button>
        <button type="submit" class="primary-action" disabled={busy()}>
          {t('lore.saveEntry')}
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
        <A href="/lore">← {t('nav.lore')}</A>
      </p>
      <Show when={book() !== undefined} fallback={<p class="muted">{t('settings.loading')}</p>}>
        <Show when={book()} fallback={<p class="muted">{t('lore.gone')}</p>}>
          {(b) => (
            <>
              <div class="title-row">
                <h1 id="lorebook-title">{b().name}</h1>
                <div class="row">
                  <button type="button" class="quiet" disabled={busy()} onClick={addEntry}>
                    {t('lore.addEntry')}
                  </button>
                  <button type="button" class="quiet" disabled={busy()} onClick={exportWorldInfo}>
                    {t('lore.export')}
                  </button>
                  <Show when={'lorebookId' in b().ref}>
                    <button type="button" class="quiet" onClick={() => setConfirmDelete(true)}>
                      {t('lore.delete')}
                    </button>
                  </Show>
                </div>
              </div>
              <Show when={confirmDelete()}>
                <Modal title={t('lore.deleteAsk', b().name)} id="delete-lorebook-title" onClose={() => setConfirmDelete(false)}>
                  <p>{t('lore.deleteAbout')}</p>
                  <ErrorNote message={error()} />
                  <div class="dialog-actions">
                    <button type="button" onClick={() => setConfirmDelete(false)}>
                      {t('edit.cancel')}
                    </button>
                    <button type="button" class="primary-action danger" disabled={busy()} onClick={() => remove((b().ref as { lorebookId: string }).lorebookId)}>
                      {t('bots.delete')}
                    </button>
                  </div>
                </Modal>
              </Show>
              <p class="muted small-text">
                {b().kind === 'card' ? t('lore.cardAlwaysOn') : t('lore.attachHint')}
                {' · '}{t('lore.scans', b().settings.scanDepth)}
                {' · '}{t('lore.budget', b().settings.tokenBudget)}{b().settings.recursive ? t('lore.recursive') : ''}
              </p>
              <input type="search" class="chat-search" aria-label={t('lore.find')} placeholder={t('lore.find')} value={find()} onInput={(e) => setFind(e.currentTarget.value)} />
              <ErrorNote message={error()} />
              <ul class="lore-entries plain" aria-label={t('lore.entriesLabel')}>
                <For each={shown()}>
                  {(entry) => (
                    <li class="card lore-entry" classList={{ off: !entry.enabled }}>
                      <div class="title-row">
                        <strong>{titleOf(entry)}</strong>
                        <div class="row">
                          <Show when={entry.edited}>
                            <span class="muted small-text">{t('lore.edited')}</span>
                          </Show>
                          <label class="check-row small-text">
                            <input
                              type="checkbox"
                              aria-label={t('moreWords.entryOn', titleOf(entry))}
                              checked={entry.enabled}
                              disabled={busy()}
                              onChange={(e) => {
                                const { edited: _edited, ...plain } = entry;
                                void run(() => save({ ...plain, enabled: e.currentTarget.checked }));
                              }}
                            />
                            {t('lore.on')}
                          </label>
                          <button type="button" class="small" aria-label={t('edit.edit', titleOf(entry))} onClick={() => setEditing(entry.position)}>
                            {t('bots.edit')}
                          </button>
                        </div>
                      </div>
                      <Show
                        when={editing() === entry.position}
                        fallback={
                          <>
                            <p class="small-text">
                              <Show when={entry.constant} fallback={<>{t('lore.keysAre', entry.keys.join(', ') || t('lore.noKeys'))}</>}>
                                {t('lore.alwaysOn')}
                              </Show>
                              <Show when={entry.secondaryKeys.length > 0}>
                                {' '}
                                {logicWords(entry.logic)} {entry.secondaryKeys.join(', ')}
                              </Show>
                              {' · '}
                              {entry.placement === 'after_char' ? t('lore.afterShort') : t('lore.beforeShort')}{t('lore.orderIs', entry.insertionOrder)}
                              <Show when={entry.useProbability}>{t('lore.chanceIs', entry.probability)}</Show>
                            </p>
                            <For each={entry.keyProblems}>
                              {(refused) => (
                                <p class="error small-text" data-testid="key-problem">
                                  {t('lore.keyProblem', refused.key, refused.problem)}
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
