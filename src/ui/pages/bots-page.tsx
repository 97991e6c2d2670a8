import { A } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { Avatar } from '../avatar.tsx';
import { CardImport } from './card-import.tsx';
import { createFileDrop, FileButton } from '../file-input.tsx';
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
  /** A card file chosen or dropped: its preview asks before anything is saved. */
  const [cardFile, setCardFile] = createSignal<File | null>(null);
  const [imported, setImported] = createSignal<{ id: string; name: string } | null>(null);
  const drop = createFileDrop(setCardFile);
  return (
    <section aria-labelledby="bots-title" classList={{ 'drop-target': drop.dragging() }} {...drop.handlers}>
      <div class="title-row">
        <h1 id="bots-title">Bots</h1>
        <div class="row">
          <A class="button quiet" href="/deleted">
            Recently deleted
          </A>
          <FileButton label="Import card" title="A character card: PNG, JSON or CHARX (or drop it on this page)" accept=".png,.json,.charx,image/png,application/json" onFile={setCardFile} />
          <A class="button primary" href="/bots/new">
            New bot
          </A>
        </div>
      </div>
      <Show when={cardFile()}>
        {(file) => (
          <CardImport
            client={client}
            file={file()}
            existing={bots() ?? []}
            onClose={() => setCardFile(null)}
            onImported={(id, name) => {
              setCardFile(null);
              setImported({ id, name });
            }}
          />
        )}
      </Show>
      <Show when={imported()}>
        {(bot) => (
          <div class="toast inline-toast" role="status" data-testid="imported-toast">
            <span>{bot().name} imported.</span>
            <A class="button small" href={`/bots/${bot().id}/start`}>
              Start a chat
            </A>
          </div>
        )}
      </Show>
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
