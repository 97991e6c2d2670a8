import { createEffect, createResource, createSignal, For, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { Modal } from '../modal.tsx';
import { CardImport } from './card-import.tsx';
import { FileButton } from '../file-input.tsx';
import { importTopic, type ImportProgress } from '../../engine/for-ui.ts';

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

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

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
    <Modal title="Import this chat?" id="chat-import-title" onClose={() => (progress() ? undefined : props.onClose())}>
      <Show when={chat()} fallback={<p class="muted">Reading {props.file.name}…</p>}>
        {(value) => (
          <Show when={plan()} fallback={<ErrorNote message={'failure' in value() ? (value() as { failure: string }).failure : null} />}>
            {(shown) => (
              <div class="stack" data-testid="chat-preview">
                <p>
                  {count(shown().messages.length, 'message', 'messages')} from SillyTavern
                  <Show when={shown().characterName}> with {shown().characterName}</Show>
                  <Show when={shown().firstSentAt !== null}>
                    {', '}
                    {dateFormat.format(shown().firstSentAt!)}
                    <Show when={shown().lastSentAt !== shown().firstSentAt}> to {dateFormat.format(shown().lastSentAt!)}</Show>
                  </Show>
                  .
                </p>
                <p class="muted small-text">
                  {(shown().messages.length - replies()).toLocaleString()} of yours
                  {' · '}
                  {count(replies(), 'reply', 'replies')}
                  <Show when={shown().withVersions > 0}>, {shown().withVersions.toLocaleString()} with versions to swipe</Show>
                  <Show when={shown().skipped > 0}>
                    {' · '}
                    {count(shown().skipped, 'system note or empty message', 'system notes or empty messages')} left out
                  </Show>
                </p>
                <label class="stack">
                  Title
                  <input value={chosenTitle()} maxLength={120} onInput={(e) => setTitle(e.currentTarget.value)} />
                </label>
                <Show
                  when={(bots() ?? []).length > 0}
                  fallback={<p class="muted">No bots here yet: import {shown().characterName || 'the character'}’s card to play this story with them.</p>}
                >
                  <label class="stack">
                    Bot
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
                <FileButton label="Import their card" class="button quiet small self-start" accept=".png,.json,.charx,image/png,application/json" onFile={setCardFile} />
                <p class="muted small-text">Only the newest replies are read for memories and feelings; the rest of the story is kept as it was written.</p>
                <Show when={progress()}>
                  {(p) => (
                    <div class="stack">
                      <progress class="import-progress" aria-label="Import progress" value={Math.round(fraction(p()) * 1000)} max={1000} />
                      <span class="muted small-text" role="status">
                        {p().phase === 'writing'
                          ? `Writing messages: ${p().done.toLocaleString()} of ${p().total.toLocaleString()}`
                          : `Arranging the story: ${Math.round((100 * p().done) / Math.max(1, p().total))} %`}
                      </span>
                    </div>
                  )}
                </Show>
                <ErrorNote message={error()} />
                <div class="dialog-actions">
                  <button type="button" disabled={progress() !== null} onClick={() => props.onClose()}>
                    Cancel
                  </button>
                  <button type="button" class="primary-action" disabled={progress() !== null || !botId() || !chosenTitle()} onClick={() => void save()}>
                    Import
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
