import { createMemo, createResource, For, Show } from 'solid-js';
import { loadCardHtml } from '../card-html.ts';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';

/**
 * Where a bot came from: its card's creator, version and tags, and the creator's notes. Notes are
 * the card author's HTML, and cards are this field's known attack vector: they are shown through
 * card-html.ts (no scripts, handlers, frames, forms, borrowed classes or remote loads), and never
 * reach a prompt.
 */
export function CardInfo(props: { client: AppClient; botId: string }) {
  const info = createLiveQuery(props.client, { query: 'botCardInfo' }, () => props.client.engine.botCardInfo(props.botId));
  // Loaded only for a bot that has notes to show.
  const [sanitiser] = createResource(() => (info()?.creatorNotes.trim() ? true : null), loadCardHtml);
  return (
    <Show when={info()}>
      {(card) => (
        <section aria-labelledby="card-info-title" class="card-info">
          <h2 id="card-info-title">From a character card</h2>
          <p class="small-text muted">
            {card().spec.replace('chara_card_', 'Card ').replace('v', 'V')}
            {card().creator ? ` by ${card().creator}` : ''}
            {card().characterVersion ? ` · version ${card().characterVersion}` : ''}
            {card().lorebookEntries ? ` · ${card().lorebookEntries} lorebook entries` : ''}
          </p>
          <Show when={card().tags.length}>
            <ul class="tags" aria-label="Tags">
              <For each={card().tags}>{(tag) => <li>{tag}</li>}</For>
            </ul>
          </Show>
          <Show when={card().creatorNotes.trim() ? sanitiser() : undefined}>
            {(sanitise) => {
              const notes = createMemo(() => sanitise()(card().creatorNotes));
              return (
                <details open>
                  <summary>Creator's notes</summary>
                  <div class="creator-notes card-html" data-testid="creator-notes">
                    {notes().fragment}
                  </div>
                  <Show when={notes().notLoaded.length}>
                    <p class="small-text muted">
                      {notes().notLoaded.length === 1 ? 'One remote picture or sound was' : `${notes().notLoaded.length} remote pictures or sounds were`} not loaded:
                      loading them would tell their server you opened this card. Settings → Look → “Show remote images” shows pictures.
                    </p>
                  </Show>
                </details>
              );
            }}
          </Show>
        </section>
      )}
    </Show>
  );
}
