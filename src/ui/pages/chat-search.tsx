import { A } from '@solidjs/router';
import { t } from '../i18n/index.ts';
import { createResource, createSignal, For, Show } from 'solid-js';
import { MATCH_END, MATCH_START, type SearchHit } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';

/** A snippet's matched words as <mark>, everything as text: the story's words never become markup. */
function Snippet(props: { text: string }) {
  const pieces = () =>
    props.text.split(MATCH_START).flatMap((part, i) => {
      if (i === 0) return [{ text: part, match: false }];
      const [matched = '', rest = ''] = part.split(MATCH_END);
      return [
        { text: matched, match: true },
        { text: rest, match: false },
      ];
    });
  return (
    <span class="snippet-full">
      <For each={pieces()}>{(piece) => (piece.match ? <mark>{piece.text}</mark> : piece.text)}</For>
    </span>
  );
}

/** The hits for what is typed in "Search all chats", each a link to its turn in its chat. */
export function ChatSearchResults(props: { client: AppClient; text: string }) {
  const [failure, setFailure] = createSignal<string | null>(null);
  const [hits] = createResource(
    () => props.text.trim() || null,
    (text) => {
      setFailure(null);
      return (props.client.engine.searchChats(text) as Promise<SearchHit[]>).catch((error: unknown) => {
        setFailure(error instanceof Error ? error.message : String(error));
        return [];
      });
    },
  );
  return (
    <Show when={!failure()} fallback={<p class="error" role="alert">{t('chats.searchFailed', failure() ?? '')}</p>}>
    <Show when={hits()} fallback={<p class="muted">{t('chats.searching')}</p>}>
      {(list) => (
        <Show when={list().length > 0} fallback={<p class="muted">{t('chats.noMatch', props.text.trim())}</p>}>
          <p class="muted small-text" role="status">
            {list().length === 50 ? t('chats.bestMatches', 50) : t('chats.matches', list().length)}
          </p>
          <ul class="cards" aria-label={t('chats.results')}>
            <For each={list()}>
              {(hit) => (
                <li class="card chat-card">
                  <A href={`/chats/${hit.chatId}?turn=${hit.seq}`} class="card-link">
                    <span class="card-title">
                      <strong>{hit.chatTitle}</strong> <span class="muted">· {hit.speakerName}</span>
                    </span>
                    <Snippet text={hit.snippet} />
                  </A>
                </li>
              )}
            </For>
          </ul>
        </Show>
      )}
    </Show>
    </Show>
  );
}
