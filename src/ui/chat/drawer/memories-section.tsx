import { For, Show } from 'solid-js';
import type { Memory } from '../../../engine/for-ui.ts';
import { formatStoryTime, formatStoryTimeAgo } from '../../i18n/format.ts';
import { t } from '../../i18n/index.ts';
import { Editable } from '../editable.tsx';
import { StoryText } from '../story-text.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

const significance = (level: number) => t(`edit.significance.${String(level) as '0'}`);
/** Memories hold in-character text only; nothing in them is an aside. */
const OOC: [string, string] = ['\u0000', '\u0000'];

/** The host's memories: when, how significant, pinned or not, and their text, all editable. */
export function MemoriesSection(props: { d: DrawerScope }) {
  const d = props.d;
  const togglePin = (memory: Memory) => void d.act(() => d.client.engine.pinMemory(d.chatId(), memory.id, !memory.pinned));
  return (
    <section aria-labelledby="drawer-memories">
      <h2 id="drawer-memories">
        {t('memories.whose', d.name(d.drawer().botId))}{' '}
        <span class="muted small-text" data-testid="pin-count" title={t('memories.pinnedHint')}>
          {t('memories.pinned', d.drawer().pinned.count, d.drawer().pinned.cap)}
        </span>
      </h2>
      <Show when={d.drawer().memories.length > 0} fallback={<p class="muted">{t('memories.none')}</p>}>
        <ul class="plain memories">
          <For each={d.drawer().memories}>
            {(memory) => (
              <li data-testid="memory" data-pinned={memory.pinned ? 'true' : 'false'}>
                <div class="memory-meta small-text">
                  <span data-testid="memory-when">
                    {formatStoryTimeAgo(memory.fictionTime, d.drawer().fictionTime)} <span class="muted">· {formatStoryTime(memory.fictionTime)}</span>
                  </span>
                  <Editable
                    label={t('memories.significance')}
                    kind="significance"
                    value={memory.significance}
                    edited={d.edited({ type: 'memory', id: memory.id }, 'significance')}
                    save={d.edit({ type: 'memory', id: memory.id }, 'significance')} actions={<ValueOrigin d={d} target={{ type: 'memory', id: memory.id }} field="significance" label={t('memories.significance')} />}>
                    <span class="significance" title={t('memories.significanceIs', significance(memory.significance))} aria-label={t('memories.significanceIs', significance(memory.significance))}>
                      {'●'.repeat(memory.significance)}
                      {'○'.repeat(3 - memory.significance)}
                    </span>
                  </Editable>
                  <button
                    type="button"
                    class="small quiet"
                    aria-pressed={memory.pinned}
                    aria-label={t('memories.pin', memory.summary.length > 60 ? `${memory.summary.slice(0, 59)}…` : memory.summary)}
                    disabled={d.busy()}
                    onClick={() => togglePin(memory)}
                  >
                    {memory.pinned ? (memory.autoPinned ? t('memories.pinnedAuto') : t('memories.isPinned')) : t('memories.pinButton')}
                  </button>
                </div>
                <div class="memory-text">
                  <Editable label={t('memories.memory')} kind="long" value={memory.summary} edited={d.edited({ type: 'memory', id: memory.id }, 'summary')} save={d.edit({ type: 'memory', id: memory.id }, 'summary')} actions={<ValueOrigin d={d} target={{ type: 'memory', id: memory.id }} label={t('memories.memory')} />}>
                    <StoryText text={memory.summary} ooc={OOC} />
                  </Editable>
                </div>
                <Show when={memory.keywords}>
                  <p class="memory-keywords muted small-text" data-testid="memory-keywords" title={t('memories.foundByHint')}>
                    {t('memories.foundBy', memory.keywords)}
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
