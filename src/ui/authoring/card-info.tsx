import { createResource, For, Show } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';

/**
 * Where a bot came from: its card's creator, version and tags, and the creator's notes. Notes are
 * the card author's HTML, and cards are this field's known attack vector: they are sanitised
 * (DOMPurify: no scripts, handlers, frames or forms) before they are shown, and never reach a prompt.
 */
export function CardInfo(props: { client: AppClient; botId: string }) {
  const info = createLiveQuery(props.client, { query: 'botCardInfo' }, () => props.client.engine.botCardInfo(props.botId));
  // Loaded only for a bot that has notes to show.
  const [purify] = createResource(
    () => (info()?.creatorNotes.trim() ? true : null),
    () => import('dompurify').then((m) => m.default),
  );
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
          <Show when={card().creatorNotes.trim() ? purify() : undefined}>
            {(sanitizer) => (
              <details open>
                <summary>Creator's notes</summary>
                <div
                  class="creator-notes"
                  data-testid="creator-notes"
                  innerHTML={sanitizer().sanitize(card().creatorNotes, { FORBID_TAGS: ['style', 'form', 'input', 'button'], FORBID_ATTR: ['style'] })}
                />
              </details>
            )}
          </Show>
        </section>
      )}
    </Show>
  );
}
