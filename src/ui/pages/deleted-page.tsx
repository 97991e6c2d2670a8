import { A } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { ErrorNote } from '../error-note.tsx';
import { t, uiLanguage } from '../i18n/index.ts';

const day = (ms: number) => new Date(ms).toLocaleDateString(uiLanguage(), { day: 'numeric', month: 'long', year: 'numeric' });

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
          {props.detail} · {t('deleted.goesOn', day(props.purgeTs))}
        </span>
      </div>
      <div class="row">
        <button type="button" aria-label={t('deleted.restore', props.title)} disabled={busy()} onClick={() => void run(props.restore)}>
          {t('story.restore')}
        </button>
        <button
          type="button"
          class="danger"
          aria-label={confirming() === props.key ? t('deleted.reallyLabel', props.title) : t('deleted.foreverLabel', props.title)}
          disabled={busy()}
          onClick={() => forever(props.key, props.purge)}
        >
          {confirming() === props.key ? t('deleted.really') : t('deleted.forever')}
        </button>
      </div>
    </li>
  );

  return (
    <section aria-labelledby="deleted-title">
      <div class="title-row">
        <h1 id="deleted-title">{t('chats.recentlyDeleted')}</h1>
        <A class="button" href="/chats">
          {t('deleted.back')}
        </A>
      </div>
      <p class="muted">
        {t('deleted.about')}
      </p>
      <ErrorNote message={error()} />
      <Show when={deleted()} fallback={<p class="muted">{t('settings.loading')}</p>}>
        {(list) => (
          <Show when={list().chats.length + list().bots.length > 0} fallback={<p class="muted">{t('deleted.nothing')}</p>}>
            <Show when={list().chats.length > 0}>
              <h2>{t('nav.chats')}</h2>
              <ul class="cards" aria-label={t('deleted.chats')}>
                <For each={list().chats}>
                  {(chat) => (
                    <Row
                      key={`chat:${chat.id}`}
                      title={chat.title}
                      detail={t('deleted.chatDetail', chat.botName ?? t('chats.deletedBot'), day(chat.deletedTs))}
                      purgeTs={chat.purgeTs}
                      restore={() => client.engine.restoreChat(chat.id)}
                      purge={() => client.engine.purgeNow({ chatId: chat.id })}
                    />
                  )}
                </For>
              </ul>
            </Show>
            <Show when={list().bots.length > 0}>
              <h2>{t('nav.bots')}</h2>
              <ul class="cards" aria-label={t('deleted.bots')}>
                <For each={list().bots}>
                  {(bot) => (
                    <Row
                      key={`bot:${bot.id}`}
                      title={bot.name}
                      detail={t('deleted.botDetail', t('chats.count', bot.chats), day(bot.deletedTs))}
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
