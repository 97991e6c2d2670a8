import { A, useNavigate } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { ErrorNote } from '../error-note.tsx';
import { FileButton } from '../file-input.tsx';
import { createLiveQuery } from '../live-query.ts';
import type { LorebookRef } from '../../engine/for-ui.ts';

/** Where a lorebook's page is: its own, or a bot's card book. */
export const lorebookHref = (ref: LorebookRef) => ('botId' in ref ? `/lore/bot/${ref.botId}` : `/lore/book/${ref.lorebookId}`);

/**
 * "Lore": every lorebook here, those imported on their own (SillyTavern world info, V3 lorebooks)
 * and those that came with a bot's card, each opening on its entries.
 */
export function LorePage() {
  const client = useClient();
  const books = createLiveQuery(client, { query: 'listLorebooks' }, () => client.engine.listLorebooks());
  const { run, busy, error } = createAction();
  const navigate = useNavigate();
  const [added, setAdded] = createSignal<{ id: string; name: string } | null>(null);
  const addFile = (file: File) =>
    void run(async () => {
      const id = await client.engine.addLorebook({ text: await file.text(), fileName: file.name });
      const book = await client.engine.lorebook({ lorebookId: id });
      setAdded({ id, name: book?.name ?? file.name });
    });
  return (
    <section aria-labelledby="lore-title">
      <div class="title-row">
        <h1 id="lore-title">Lore</h1>
        <form
          class="row new-lorebook"
          aria-label="New lorebook"
          onSubmit={(event) => {
            event.preventDefault();
            const name = String(new FormData(event.currentTarget).get('name') ?? '');
            void run(async () => navigate(`/lore/book/${await client.engine.createLorebook(name)}`));
          }}
        >
          <input name="name" aria-label="New lorebook's name" placeholder="New lorebook's name" maxLength={120} required />
          <button type="submit" disabled={busy()}>
            New lorebook
          </button>
        </form>
        <FileButton
          label="Import lorebook"
          title="SillyTavern world info or a V3 lorebook (.json)"
          accept=".json,application/json"
          disabled={busy()}
          onFile={(file) => {
            setAdded(null);
            addFile(file);
          }}
        />
      </div>
      <p class="muted">
        A lorebook tells the narrator about the world when the story mentions an entry’s keys. A bot’s card lorebook is always on in its chats;
        one of their own is attached to a chat from its Story state.
      </p>
      <ErrorNote message={error()} />
      <Show when={added()}>
        {(book) => (
          <div class="toast inline-toast" role="status" data-testid="lorebook-added">
            <span>{book().name} imported.</span>
            <A class="button small" href={`/lore/book/${book().id}`}>
              Open it
            </A>
          </div>
        )}
      </Show>
      <Show when={books()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">No lorebooks yet.</p>}>
            <ul class="cards" aria-label="Lorebooks">
              <For each={list()}>
                {(book) => (
                  <li class="card">
                    <A href={lorebookHref(book.ref)} class="card-link">
                      <span class="card-text">
                        <strong>{book.name}</strong>
                        <span class="muted small">
                          {book.kind === 'card' ? `From ${book.owner ?? 'a bot'}’s card` : book.kind === 'made' ? 'Made here' : 'Imported'} · {book.entries === 1 ? '1 entry' : `${book.entries} entries`}
                          {book.enabled < book.entries ? `, ${book.entries - book.enabled} off` : ''}
                        </span>
                      </span>
                    </A>
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
