import { For, Show } from 'solid-js';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { CHAT_LIST_KINDS } from '../query-kinds.ts';

export function ChatsPage() {
  const client = useClient();
  const chats = createLiveQuery(client, { kinds: CHAT_LIST_KINDS }, () => client.engine.listChats());
  return (
    <section aria-labelledby="chats-title">
      <h1 id="chats-title">Chats</h1>
      <Show when={chats()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">No chats yet. Create a bot, then start a story with it.</p>}>
            <ul class="cards" aria-label="Chats">
              <For each={list()}>
                {(chat) => (
                  <li class="card">
                    <strong>{chat.title}</strong> <span class="muted">with {chat.botName ?? 'a deleted bot'}</span>
                    <p class="muted">{chat.lastReply ?? 'No reply yet.'}</p>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
    </section>
  );
}
