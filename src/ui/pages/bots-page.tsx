import { A } from '@solidjs/router';
import { For, Show } from 'solid-js';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';

export function BotsPage() {
  const client = useClient();
  const bots = createLiveQuery(client, { query: 'listBots' }, () => client.engine.listBots());
  return (
    <section aria-labelledby="bots-title">
      <div class="title-row">
        <h1 id="bots-title">Bots</h1>
        <A class="button primary" href="/bots/new">
          New bot
        </A>
      </div>
      <Show when={bots()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">No bots yet.</p>}>
            <ul class="cards" aria-label="Bots">
              <For each={list()}>
                {(bot) => (
                  <li class="card">
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
