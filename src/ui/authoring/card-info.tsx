import { createMemo, createResource, For, Show } from 'solid-js';
import { loadCardHtml } from '../card-html.ts';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';
import { t } from '../i18n/index.ts';

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
          <h2 id="card-info-title">{t('card.from')}</h2>
          <p class="small-text muted">
            {card().spec.replace('chara_card_', t('card.card')).replace('v', 'V')}
            {card().creator ? t('card.by', card().creator) : ''}
            {card().characterVersion ? t('card.version', card().characterVersion) : ''}
            {card().lorebookEntries ? t('card.entries', card().lorebookEntries) : ''}
          </p>
          <Show when={card().tags.length}>
            <ul class="tags" aria-label={t('card.tags')}>
              <For each={card().tags}>{(tag) => <li>{tag}</li>}</For>
            </ul>
          </Show>
          <Show when={card().creatorNotes.trim() ? sanitiser() : undefined}>
            {(sanitise) => {
              const notes = createMemo(() => sanitise()(card().creatorNotes));
              return (
                <details open>
                  <summary>{t('card.notes')}</summary>
                  <div class="creator-notes card-html" data-testid="creator-notes">
                    {notes().fragment}
                  </div>
                  <Show when={notes().notLoaded.length}>
                    <p class="small-text muted">
                      {t('card.notLoaded', notes().notLoaded.length)}
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
