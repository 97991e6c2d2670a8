import { A } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { Avatar } from '../avatar.tsx';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { ErrorNote } from '../error-note.tsx';

export function BotsPage() {
  const client = useClient();
  const bots = createLiveQuery(client, { query: 'listBots' }, () => client.engine.listBots());
  const { run, busy, error } = createAction();
  /** The bot just deleted, for its Undo. */
  const [deleted, setDeleted] = createSignal<{ id: string; name: string } | null>(null);
  const remove = (bot: { id: string; name: string }) => void run(() => client.engine.deleteBot(bot.id).then(() => setDeleted(bot)));
  const undo = (bot: { id: string }) => void run(() => client.engine.restoreBot(bot.id).then(() => setDeleted(null)));
  return (
    <section aria-labelledby="bots-title">
      <div class="title-row">
        <h1 id="bots-title">Bots</h1>
        <div class="row">
          <A class="button quiet" href="/deleted">
            Recently deleted
          </A>
          <A class="button primary" href="/bots/new">
            New bot
          </A>
        </div>
      </div>
      <Show when={deleted()}>
        {(bot) => (
          <div class="toast inline-toast" role="status" data-testid="deleted-toast">
            <span>{bot().name} and their chats moved to Recently deleted.</span>
            <button type="button" class="small" disabled={busy()} onClick={() => undo(bot())}>
              Undo
            </button>
          </div>
        )}
      </Show>
      <ErrorNote message={error()} />
      <Show when={bots()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">No bots yet.</p>}>
            <ul class="cards" aria-label="Bots">
              <For each={list()}>
                {(bot) => (
                  <li class="card">
                    <Avatar client={client} name={bot.name} hash={bot.avatar} size="large" />
                    <div class="card-main">
                      <strong>{bot.name}</strong>
                      <Show when={bot.persona}>
                        <p class="muted clamp">{bot.persona}</p>
                      </Show>
                    </div>
                    <div class="row">
                      <A class="button" href={`/bots/${bot.id}/edit`} aria-label={`Edit ${bot.name}`}>
                        Edit
                      </A>
                      <button type="button" class="quiet" aria-label={`Delete ${bot.name}`} disabled={busy()} onClick={() => remove(bot)}>
                        Delete
                      </button>
                      <A class="button primary" href={`/bots/${bot.id}/start`} aria-label={`Start a chat with ${bot.name}`}>
                        Start a chat
                      </A>
                    </div>
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
