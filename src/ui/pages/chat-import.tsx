import { createEffect, createResource, createSignal, For, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { Modal } from '../modal.tsx';
import { CardImport } from './card-import.tsx';
import { FileButton } from '../file-input.tsx';
import { importTopic, type ImportProgress } from '../../engine/for-ui.ts';
import { t, uiLanguage } from '../i18n/index.ts';

/** The file read and checked in this tab (the reader loads only now, when a chat is imported). */
async function readChat(file: File) {
  const { chatFileTooLarge, planChatImport } = await import('../../engine/for-ui-files.ts');
  // Said before the file is read: past a few hundred MB a tab cannot hold it as text at all.
  const tooLarge = chatFileTooLarge(file.size);
  if (tooLarge) throw new Error(tooLarge);
  const text = await file.text();
  return { text, plan: planChatImport(text) };
}

/** Writing the messages is about half the work; arranging them into the story the other half. */
const fraction = (p: ImportProgress) => (p.phase === 'writing' ? 0 : 0.5) + 0.5 * (p.done / Math.max(1, p.total));

const dateFormat = () => new Intl.DateTimeFormat(uiLanguage(), { dateStyle: 'medium', timeZone: 'UTC' });

/** A title from the file's name: SillyTavern names its chats "Character - 2023-6-3@12h34m56s.jsonl". */
const titleFrom = (fileName: string) => fileName.replace(/\.(jsonl|json|txt)$/i, '').replace(/\s*-\s*\d{4}-\d{1,2}-\d{1,2}\s*@.*$/, '').trim().slice(0, 120);

/**
 * "Import chat": a SillyTavern chat file, shown before anything is written (how many messages,
 * versions and dates it holds, and whose story it is: a bot here, or one whose card is imported
 * now). Importing writes it whole, with a progress bar, and opens it.
 */
export function ChatImport(props: { client: AppClient; file: File; onClose: () => void; onImported: (chatId: string) => void }) {
  const client = props.client;
  const [chat] = createResource(
    () => props.file,
    (file) => readChat(file).catch((error: unknown) => ({ failure: error instanceof Error ? error.message : String(error) })),
  );
  const loaded = () => {
    const value = chat();
    return value && !('failure' in value) ? value : null;
  };
  const [bots, { refetch }] = createResource(() => client.engine.listBots());
  const [botId, setBotId] = createSignal('');
  const [title, setTitle] = createSignal<string | null>(null);
  const [cardFile, setCardFile] = createSignal<File | null>(null);
  const [error, setError] = createSignal<string | null>(null);
  const [progress, setProgress] = createSignal<ImportProgress | null>(null);
  // The bot the file names, once both are known (the file is read after the bots are listed: choosing
  // before then chose the first bot); the player can pick another.
  createEffect(() => {
    const name = loaded()?.plan.characterName.toLowerCase();
    const list = bots();
    if (!list || name === undefined || botId()) return;
    setBotId((list.find((b) => b.name.toLowerCase() === name) ?? list[0])?.id ?? '');
  });
  const chosenTitle = () => (title() ?? titleFrom(props.file.name)).trim();
  const plan = () => loaded()?.plan;
  const replies = () => plan()?.messages.filter((m) => m.role === 'assistant').length ?? 0;

  const save = async () => {
    const shown = loaded();
    if (!shown || !botId()) return;
    setError(null);
    const progressId = crypto.randomUUID();
    setProgress({ phase: 'writing', done: 0, total: shown.plan.messages.length });
    const stop = client.onPublish((topic, _seq, data) => {
      if (topic === importTopic(progressId)) setProgress(data as ImportProgress);
    });
    try {
      const chatId = await client.engine.importChat({ text: shown.text, botId: botId(), title: chosenTitle(), progressId });
      props.onImported(chatId);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setProgress(null);
    } finally {
      stop();
    }
  };

  return (
    <Modal title={t('imports.chatAsk')} id="chat-import-title" onClose={() => (progress() ? undefined : props.onClose())}>
      <Show when={chat()} fallback={<p class="muted">{t('imports.reading', props.file.name)}</p>}>
        {(value) => (
          <Show when={plan()} fallback={<ErrorNote message={'failure' in value() ? (value() as { failure: string }).failure : null} />}>
            {(shown) => (
              <div class="stack" data-testid="chat-preview">
                <p>
                  {t('imports.messagesFrom', shown().messages.length)}
                  <Show when={shown().characterName}>{t('imports.withName', shown().characterName)}</Show>
                  <Show when={shown().firstSentAt !== null}>
                    {t('rewind.comma')}
                    {dateFormat().format(shown().firstSentAt!)}
                    <Show when={shown().lastSentAt !== shown().firstSentAt}>{t('imports.toDate', dateFormat().format(shown().lastSentAt!))}</Show>
                  </Show>
                  {t('imports.period')}
                </p>
                <p class="muted small-text">
                  {t('imports.yours', shown().messages.length - replies())}
                  {' · '}
                  {t('imports.replies', replies())}
                  <Show when={shown().withVersions > 0}>{t('imports.withVersions', shown().withVersions)}</Show>
                  <Show when={shown().skipped > 0}>
                    {' · '}
                    {t('imports.skipped', shown().skipped)}
                  </Show>
                </p>
                <label class="stack">
                  {t('kickoff.chatTitle')}
                  <input value={chosenTitle()} maxLength={120} onInput={(e) => setTitle(e.currentTarget.value)} />
                </label>
                <Show
                  when={(bots() ?? []).length > 0}
                  fallback={<p class="muted">{t('imports.noBots', shown().characterName || t('imports.theCharacter'))}</p>}
                >
                  <label class="stack">
                    {t('imports.bot')}
                    <select onChange={(e) => setBotId(e.currentTarget.value)}>
                      <For each={bots()}>
                        {(bot) => (
                          <option value={bot.id} selected={bot.id === botId()}>
                            {bot.name}
                          </option>
                        )}
                      </For>
                    </select>
                  </label>
                </Show>
                <FileButton label={t('imports.theirCard')} class="button quiet small self-start" accept=".png,.json,.charx,image/png,application/json" onFile={setCardFile} />
                <p class="muted small-text">{t('imports.newestOnly')}</p>
                <Show when={progress()}>
                  {(p) => (
                    <div class="stack">
                      <progress class="import-progress" aria-label={t('imports.progress')} value={Math.round(fraction(p()) * 1000)} max={1000} />
                      <span class="muted small-text" role="status">
                        {p().phase === 'writing'
                          ? t('imports.writing', p().done, p().total)
                          : t('imports.arranging', Math.round((100 * p().done) / Math.max(1, p().total)))}
                      </span>
                    </div>
                  )}
                </Show>
                <ErrorNote message={error()} />
                <div class="dialog-actions">
                  <button type="button" disabled={progress() !== null} onClick={() => props.onClose()}>
                    {t('edit.cancel')}
                  </button>
                  <button type="button" class="primary-action" disabled={progress() !== null || !botId() || !chosenTitle()} onClick={() => void save()}>
                    {t('imports.import')}
                  </button>
                </div>
              </div>
            )}
          </Show>
        )}
      </Show>
      <Show when={cardFile()}>
        {(file) => (
          <CardImport
            client={client}
            file={file()}
            existing={bots() ?? []}
            onClose={() => setCardFile(null)}
            onImported={(id) => {
              setCardFile(null);
              setBotId(id);
              void refetch();
            }}
          />
        )}
      </Show>
    </Modal>
  );
}
