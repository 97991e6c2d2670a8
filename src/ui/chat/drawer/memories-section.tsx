import { For, Show } from 'solid-js';
import { describeFictionTime, storyTimeAgo, type Memory } from '../../../engine/for-ui.ts';
import { Editable } from '../editable.tsx';
import { StoryText } from '../story-text.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

const SIGNIFICANCE = ['trivial', 'ordinary', 'notable', 'pivotal'];
/** Memories hold in-character text only; nothing in them is an aside. */
const OOC: [string, string] = ['\u0000', '\u0000'];

/** The host's memories: when, how significant, pinned or not, and their text, all editable. */
export function MemoriesSection(props: { d: DrawerScope }) {
  const d = props.d;
  const togglePin = (memory: Memory) => void d.act(() => d.client.engine.pinMemory(d.chatId(), memory.id, !memory.pinned));
  return (
    <section aria-labelledby="drawer-memories">
      <h2 id="drawer-memories">
        {d.name(d.drawer().botId)}'s memories{' '}
        <span class="muted small-text" data-testid="pin-count" title="Pinned memories always reach the story">
          pinned {d.drawer().pinned.count}/{d.drawer().pinned.cap}
        </span>
      </h2>
      <Show when={d.drawer().memories.length > 0} fallback={<p class="muted">No memories yet. They form after each reply.</p>}>
        <ul class="plain memories">
          <For each={d.drawer().memories}>
            {(memory) => (
              <li data-testid="memory" data-pinned={memory.pinned ? 'true' : 'false'}>
                <div class="memory-meta small-text">
                  <span data-testid="memory-when">
                    {storyTimeAgo(memory.fictionTime, d.drawer().fictionTime)} <span class="muted">· {describeFictionTime(memory.fictionTime)}</span>
                  </span>
                  <Editable
                    label="significance"
                    kind="significance"
                    value={memory.significance}
                    edited={d.edited({ type: 'memory', id: memory.id }, 'significance')}
                    save={d.edit({ type: 'memory', id: memory.id }, 'significance')} actions={<ValueOrigin d={d} target={{ type: 'memory', id: memory.id }} field="significance" label="significance" />}>
                    <span class="significance" title={`Significance: ${SIGNIFICANCE[memory.significance]}`} aria-label={`Significance: ${SIGNIFICANCE[memory.significance]}`}>
                      {'●'.repeat(memory.significance)}
                      {'○'.repeat(3 - memory.significance)}
                    </span>
                  </Editable>
                  <button
                    type="button"
                    class="small quiet"
                    aria-pressed={memory.pinned}
                    aria-label={`Pin “${memory.summary.length > 60 ? `${memory.summary.slice(0, 59)}…` : memory.summary}”`}
                    disabled={d.busy()}
                    onClick={() => togglePin(memory)}
                  >
                    {memory.pinned ? (memory.autoPinned ? 'Pinned (auto)' : 'Pinned') : 'Pin'}
                  </button>
                </div>
                <div class="memory-text">
                  <Editable label="memory" kind="long" value={memory.summary} edited={d.edited({ type: 'memory', id: memory.id }, 'summary')} save={d.edit({ type: 'memory', id: memory.id }, 'summary')} actions={<ValueOrigin d={d} target={{ type: 'memory', id: memory.id }} label="memory" />}>
                    <StoryText text={memory.summary} ooc={OOC} />
                  </Editable>
                </div>
                <Show when={memory.keywords}>
                  <p class="memory-keywords muted small-text" data-testid="memory-keywords" title="Words this memory is also found by">
                    Found by: {memory.keywords}
                  </p>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </section>
  );
}
