import { plainText } from '../chat/inline-spans.ts';
import { formatStoryTime } from '../i18n/format.ts';
import { t } from '../i18n/index.ts';
import { A, Navigate, useNavigate, useSearchParams } from '@solidjs/router';
import { createEffect, createResource, createSignal, For, lazy, Match, Show, Switch } from 'solid-js';
import { createFileDrop, FileButton } from '../file-input.tsx';
import { createAction } from '../action.ts';
import { Avatar } from '../avatar.tsx';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { takeFirstChatList } from '../first-chat-list.ts';
import { readAhead } from '../first-pages.ts';

/** How many chats from the top of the list have their first page read ahead. */
const READ_AHEAD = 3;

// A search and an import load when first used: the list is painted without them.
const ChatSearchResults = lazy(() => import('./chat-search.tsx').then((m) => ({ default: m.ChatSearchResults })));
const ChatImport = lazy(() => import('./chat-import.tsx').then((m) => ({ default: m.ChatImport })));

/** Where a user lands. A first visit is led on: who you are, then a bot, then its kickoff. */
export function ChatsPage() {
  const client = useClient();
  const chats = createLiveQuery(client, { query: 'listChats' }, () => client.engine.listChats(), takeFirstChatList());
  // A chat deleted from its page lands here, with a way back.
  const [params, setParams] = useSearchParams<{ deleted?: string; title?: string }>();
  const { run: restore, busy: restoring, error: restoreError } = createAction();
  // What is typed in the search field, settled for a moment before it is searched.
  const [typed, setTyped] = createSignal('');
  const [searching, setSearching] = createSignal('');
  let settle: ReturnType<typeof setTimeout> | undefined;
  const search = (text: string) => {
    setTyped(text);
    clearTimeout(settle);
    settle = setTimeout(() => setSearching(text), 150);
  };
  /** A SillyTavern chat file chosen or dropped: its preview asks before anything is written. */
  const [chatFile, setChatFile] = createSignal<File | null>(null);
  const drop = createFileDrop(setChatFile);
  const navigate = useNavigate();
  // The chats at the top are the likeliest to be opened: their first pages are read while the
  // list sits idle, so opening one lays the story out at once; so is the one a pointer (a finger
  // touching down too) or the keyboard comes to.
  let readAheadDone = false;
  createEffect(() => {
    const list = chats();
    if (readAheadDone || !list?.length) return;
    readAheadDone = true;
    (globalThis.requestIdleCallback ?? setTimeout)(() => list.slice(0, READ_AHEAD).forEach((chat) => readAhead(client, chat.id)));
  });
  const [firstRun] = createResource(async () => {
    const [you, bots] = await Promise.all([client.engine.getYou(), client.engine.listBots()]);
    return { needsYou: !you, needsBot: bots.length === 0 };
  });
  return (
    <Switch>
      <Match when={chats()?.length === 0 && firstRun()?.needsYou}>
        <Navigate href="/settings?welcome=1" />
      </Match>
      <Match when={chats()?.length === 0 && firstRun()?.needsBot}>
        <Navigate href="/bots/new" />
      </Match>
      <Match when={true}>
        <section aria-labelledby="chats-title" classList={{ 'drop-target': drop.dragging() }} {...drop.handlers}>
          <div class="title-row">
            <h1 id="chats-title">{t('chats.title')}</h1>
            <div class="row">
              <A class="button quiet" href="/deleted">
                {t('chats.recentlyDeleted')}
              </A>
              <FileButton
                label={t('chats.importChat')}
                class="button quiet"
                title={t('chats.importChatHint')}
                accept=".jsonl,.json,application/jsonl,application/x-ndjson"
                onFile={setChatFile}
              />
              <A class="button" href="/bots">
                {t('chats.newChat')}
              </A>
            </div>
          </div>
          <Show when={chats()?.length}>{(n) => <p class="muted small-text chats-count">{t('chats.count', n())}</p>}</Show>
          <Show when={chatFile()}>
            {(file) => (
              <ChatImport
                client={client}
                file={file()}
                onClose={() => setChatFile(null)}
                onImported={(chatId) => {
                  setChatFile(null);
                  navigate(`/chats/${chatId}`);
                }}
              />
            )}
          </Show>
          <Show when={params.deleted}>
            {(chatId) => (
              <div class="toast inline-toast" role="status" data-testid="deleted-toast">
                <span>{t('chats.movedToDeleted', params.title ?? t('chats.theChat'))}</span>
                <button
                  type="button"
                  class="small"
                  disabled={restoring()}
                  onClick={() => void restore(() => client.engine.restoreChat(chatId()).then(() => setParams({ deleted: undefined, title: undefined })))}
                >
                  {t('chats.undo')}
                </button>
                <Show when={restoreError()}>{(message) => <span class="error">{message()}</span>}</Show>
              </div>
            )}
          </Show>
          <Show when={(chats()?.length ?? 0) > 0 || typed()}>
            <input
              type="search"
              class="chat-search"
              aria-label={t('chats.search')}
              placeholder={t('chats.search')}
              maxLength={500}
              value={typed()}
              onInput={(event) => search(event.currentTarget.value)}
            />
          </Show>
          <Show when={searching().trim() && typed().trim()}>
            <ChatSearchResults client={client} text={searching()} />
          </Show>
          <Show when={!typed().trim()}>
          <Show when={chats()} fallback={<p class="muted">{t('chats.loading')}</p>}>
            {(list) => (
              <Show when={list().length > 0} fallback={<p class="muted">{t('chats.none')}</p>}>
                <ul class="cards" aria-label={t('chats.list')}>
                  <For each={list()}>
                    {(chat) => (
                      <li class="card chat-card">
                        <A
                          href={`/chats/${chat.id}`}
                          class="card-link with-avatar"
                          onPointerEnter={() => readAhead(client, chat.id)}
                          onFocus={() => readAhead(client, chat.id)}
                        >
                          <Avatar client={client} name={chat.botName ?? '?'} hash={chat.botAvatar} size="large" />
                          <span class="card-text">
                          <span class="card-title">
                            <strong>{chat.title}</strong> <span class="muted">{t('chats.with', chat.botName ?? t('chats.deletedBot'))}</span>
                          </span>
                          <span class="muted small">{formatStoryTime(chat.fictionTime)}</span>
                          <span class="snippet">{chat.lastReply ? plainText(chat.lastReply) : t('chats.noReply')}</span>
                          </span>
                        </A>
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
            )}
          </Show>
          </Show>
        </section>
      </Match>
    </Switch>
  );
}
