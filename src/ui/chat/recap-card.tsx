import { createResource, For, Show } from 'solid-js';
import { formatStoryTime, formatStoryTimeAgo } from '../i18n/format.ts';
import { t } from '../i18n/index.ts';
import type { AppClient } from '../engine-client.ts';
import { StoryText } from './story-text.tsx';

/**
 * "Previously on…": a card above the story, not part of it, from what the player saw: the latest
 * scenes and what happened in them, where everyone is, and the line the story stopped on. Built
 * from the story's state (no model call); every "when" by the story's own clock.
 */
export function RecapCard(props: { client: AppClient; chatId: string; onClose: () => void }) {
  const [recap] = createResource(
    () => props.chatId,
    (chatId) => props.client.engine.recap(chatId),
  );
  return (
    <Show when={recap()}>
      {(r) => (
        <section class="recap" aria-labelledby="recap-title" data-testid="recap">
          <div class="recap-head">
            <h2 id="recap-title">{t('recap.previouslyOn', r().title)}</h2>
            <button type="button" class="small" onClick={() => props.onClose()}>
              {t('recap.back')}
            </button>
          </div>
          <Show when={r().scenes.length} fallback={<p class="muted small-text">{t('recap.nothingSeen')}</p>}>
            <ol class="plain recap-scenes">
              <For each={r().scenes}>
                {(scene) => (
                  <li>
                    <p class="small-text muted">
                      {formatStoryTimeAgo(scene.began, r().now)}
                      {scene.place ? `${t('rewind.comma')}${scene.place}` : ''} <span title={formatStoryTime(scene.began)}>· {formatStoryTime(scene.began)}</span>
                    </p>
                    <For each={scene.happened}>{(memory) => <div class="story-text">{<StoryText text={memory.summary} />}</div>}</For>
                  </li>
                )}
              </For>
            </ol>
          </Show>
          <Show when={r().openThreads.length}>
            <p class="small-text">
              <strong>{t('recap.stillOpen')}</strong>
            </p>
            <ul class="small-text recap-threads">
              <For each={r().openThreads}>
                {(thread) => (
                  <li>
                    {thread.text} <span class="muted">({t(`threads.kinds.${thread.kind as 'promise'}`).toLowerCase()}{t('rewind.comma')}{formatStoryTimeAgo(thread.openedFictionTime, r().now)})</span>
                  </li>
                )}
              </For>
            </ul>
          </Show>
          <p class="small-text">
            <strong>{t('recap.now', formatStoryTime(r().now))}</strong>{' '}
            {t('recap.where', r().where.map((w) => (w.away ? t('recap.away', w.name) : `${w.name}${w.place ? t('recap.at', w.place) : ''}${w.doing ? `: ${w.doing}` : ''}`)).join('; '))}
          </p>
          <Show when={r().lastLine}>
            {(line) => (
              <p class="small-text muted">
                {t('recap.whereStopped')}<q>{line()}</q>
              </p>
            )}
          </Show>
        </section>
      )}
    </Show>
  );
}
