import { createResource, For, Show } from 'solid-js';
import { describeFictionTime, storyTimeAgo } from '../../engine/for-ui.ts';
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
            <h2 id="recap-title">Previously on {r().title}</h2>
            <button type="button" class="small" onClick={() => props.onClose()}>
              Back to the story
            </button>
          </div>
          <Show when={r().scenes.length} fallback={<p class="muted small-text">Nothing has happened yet that you saw.</p>}>
            <ol class="plain recap-scenes">
              <For each={r().scenes}>
                {(scene) => (
                  <li>
                    <p class="small-text muted">
                      {storyTimeAgo(scene.began, r().now)}
                      {scene.place ? `, ${scene.place}` : ''} <span title={describeFictionTime(scene.began)}>· {describeFictionTime(scene.began)}</span>
                    </p>
                    <For each={scene.happened}>{(memory) => <div class="story-text">{<StoryText text={memory.summary} />}</div>}</For>
                  </li>
                )}
              </For>
            </ol>
          </Show>
          <Show when={r().openThreads.length}>
            <p class="small-text">
              <strong>Still open:</strong>
            </p>
            <ul class="small-text recap-threads">
              <For each={r().openThreads}>
                {(thread) => (
                  <li>
                    {thread.text} <span class="muted">({thread.kind}, {storyTimeAgo(thread.openedFictionTime, r().now)})</span>
                  </li>
                )}
              </For>
            </ul>
          </Show>
          <p class="small-text">
            <strong>Now, {describeFictionTime(r().now)}.</strong>{' '}
            {r()
              .where.map((w) => `${w.name}${w.away ? ' is away' : `${w.place ? ` at ${w.place}` : ''}${w.doing ? `: ${w.doing}` : ''}`}`)
              .join('; ')}
            .
          </p>
          <Show when={r().lastLine}>
            {(line) => (
              <p class="small-text muted">
                Where you stopped: <q>{line()}</q>
              </p>
            )}
          </Show>
        </section>
      )}
    </Show>
  );
}
