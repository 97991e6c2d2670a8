import { A } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { ErrorNote } from '../error-note.tsx';

const day = (ms: number) => new Date(ms).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' });

/**
 * "Recently deleted": chats and bots kept for 30 days after their deletion, each with Restore and
 * "Delete forever" (asked twice). The purge after 30 days is the only other way anything goes.
 */
export function DeletedPage() {
  const client = useClient();
  const deleted = createLiveQuery(client, { query: 'recentlyDeleted' }, () => client.engine.recentlyDeleted());
  const { run, busy, error } = createAction();
  /** The row whose "Delete forever" was clicked once and now asks to be confirmed. */
  const [confirming, setConfirming] = createSignal<string | null>(null);
  const forever = (key: string, purge: () => Promise<unknown>) => {
    if (confirming() !== key) return setConfirming(key);
    setConfirming(null);
    void run(purge);
  };

  const Row = (props: { key: string; title: string; detail: string; purgeTs: number; restore: () => Promise<unknown>; purge: () => Promise<unknown> }) => (
    <li class="card deleted-card">
      <div class="card-main">
        <strong>{props.title}</strong>
        <span class="muted small-text">
          {props.detail} · goes for good on {day(props.purgeTs)}
        </span>
      </div>
      <div class="row">
        <button type="button" aria-label={`Restore ${props.title}`} disabled={busy()} onClick={() => void run(props.restore)}>
          Restore
        </button>
        <button
          type="button"
          class="danger"
          aria-label={confirming() === props.key ? `Really delete forever? ${props.title}` : `Delete forever: ${props.title}`}
          disabled={busy()}
          onClick={() => forever(props.key, props.purge)}
        >
          {confirming() === props.key ? 'Really delete forever?' : 'Delete forever'}
        </button>
      </div>
    </li>
  );

  return (
    <section aria-labelledby="deleted-title">
      <div class="title-row">
        <h1 id="deleted-title">Recently deleted</h1>
        <A class="button" href="/chats">
          Back to chats
        </A>
      </div>
      <p class="muted">
        Deleted chats and bots stay here for 30 days, then go for good: from every device you sync with, and from the sync server. A bot's chats go and come
        back with it.
      </p>
      <ErrorNote message={error()} />
      <Show when={deleted()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().chats.length + list().bots.length > 0} fallback={<p class="muted">Nothing deleted.</p>}>
            <Show when={list().chats.length > 0}>
              <h2>Chats</h2>
              <ul class="cards" aria-label="Deleted chats">
                <For each={list().chats}>
                  {(chat) => (
                    <Row
                      key={`chat:${chat.id}`}
                      title={chat.title}
                      detail={`with ${chat.botName ?? 'a deleted bot'}, deleted ${day(chat.deletedTs)}`}
                      purgeTs={chat.purgeTs}
                      restore={() => client.engine.restoreChat(chat.id)}
                      purge={() => client.engine.purgeNow({ chatId: chat.id })}
                    />
                  )}
                </For>
              </ul>
            </Show>
            <Show when={list().bots.length > 0}>
              <h2>Bots</h2>
              <ul class="cards" aria-label="Deleted bots">
                <For each={list().bots}>
                  {(bot) => (
                    <Row
                      key={`bot:${bot.id}`}
                      title={bot.name}
                      detail={`${bot.chats === 1 ? '1 chat' : `${bot.chats} chats`}, deleted ${day(bot.deletedTs)}`}
                      purgeTs={bot.purgeTs}
                      restore={() => client.engine.restoreBot(bot.id)}
                      purge={() => client.engine.purgeNow({ botId: bot.id })}
                    />
                  )}
                </For>
              </ul>
            </Show>
          </Show>
        )}
      </Show>
    </section>
  );
}
