import { createSignal, For, Show } from 'solid-js';
import { describeFictionTime, type ChatState, type Memory } from '../../engine/for-ui.ts';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import { StoryText } from './story-text.tsx';

const CLOCK_STEPS = [
  { label: '+10 min', minutes: 10 },
  { label: '+1 hour', minutes: 60 },
  { label: '+8 hours', minutes: 480 },
];

const SIGNIFICANCE = ['trivial', 'ordinary', 'notable', 'pivotal'];
/** Memories hold in-character text only; nothing in them is an aside. */
const OOC: [string, string] = ['\u0000', '\u0000'];

/**
 * The chat's living state, as the engine holds it: clock, scene and place, who is doing what, how
 * each feels about the other and what they know, and the host's memories with their pins.
 */
export function StoryDrawer(props: { client: AppClient; chatId: string; drawer: ChatState }) {
  const { run: act, busy, error } = createAction();
  const [confirmEnd, setConfirmEnd] = createSignal(false);
  const name = (ref: string) => props.drawer.names[ref] ?? 'Someone';
  const togglePin = (memory: Memory) => void act(() => props.client.engine.pinMemory(props.chatId, memory.id, !memory.pinned));

  return (
    <aside class="drawer" aria-label="Story state" data-testid="story-drawer">
      <Show when={error()}>
        {(message) => (
          <p class="error" role="alert">
            {message()}
          </p>
        )}
      </Show>

      <section aria-labelledby="drawer-clock">
        <h2 id="drawer-clock">When and where</h2>
        <p data-testid="drawer-time">
          {describeFictionTime(props.drawer.fictionTime)}
          <Show when={props.drawer.weather}>{(w) => <span class="muted"> · {w()}</span>}</Show>
        </p>
        <div class="button-row">
          <For each={CLOCK_STEPS}>
            {(step) => (
              <button type="button" class="small" disabled={busy()} onClick={() => void act(() => props.client.engine.advanceClock(props.chatId, step.minutes))}>
                {step.label}
              </button>
            )}
          </For>
        </div>
        <p data-testid="drawer-place">
          <Show when={props.drawer.place} fallback={<span class="muted">No place set.</span>}>
            {(place) => (
              <>
                <strong>{place().name}</strong> <span class="muted">({place().type})</span>
              </>
            )}
          </Show>
        </p>
        <Show when={props.drawer.scene}>
          {(scene) => (
            <p class="muted small-text">
              Scene since {describeFictionTime(scene().openedFictionTime)}, with {scene().participants.map(name).join(' and ')}.
            </p>
          )}
        </Show>
        <Show
          when={confirmEnd()}
          fallback={
            <button type="button" class="small" disabled={busy() || !props.drawer.scene} onClick={() => setConfirmEnd(true)}>
              End scene
            </button>
          }
        >
          <div class="button-row">
            <span>End this scene and summarise it?</span>
            <button type="button" class="small" onClick={() => void act(() => props.client.engine.closeScene(props.chatId)).then(() => setConfirmEnd(false))}>
              End it
            </button>
            <button type="button" class="small quiet" onClick={() => setConfirmEnd(false)}>
              Cancel
            </button>
          </div>
        </Show>
      </section>

      <Show when={props.drawer.activities.length > 0}>
        <section aria-labelledby="drawer-people">
          <h2 id="drawer-people">Who is doing what</h2>
          <ul class="plain">
            <For each={props.drawer.activities}>
              {(a) => (
                <li>
                  <strong>{name(a.entity)}</strong>
                  <Show when={a.status !== 'present'}>
                    <span class="muted"> ({a.status})</span>
                  </Show>
                  : {[a.posture, a.action.verb, a.slot].filter(Boolean).join(', ')}
                </li>
              )}
            </For>
          </ul>
        </section>
      </Show>

      <section aria-labelledby="drawer-feelings">
        <h2 id="drawer-feelings">Feelings</h2>
        <Show when={props.drawer.edges.length > 0} fallback={<p class="muted">Nothing felt yet.</p>}>
          <ul class="plain edges">
            <For each={props.drawer.edges}>
              {(edge) => (
                <li data-testid="edge" data-source={edge.source} data-target={edge.target}>
                  <p class="edge-title">
                    {name(edge.source)} → {name(edge.target)}
                  </p>
                  <label class="meter-row">
                    <span>Affinity</span>
                    <meter min={0} max={100} value={edge.affinity} />
                    <span data-testid="affinity">{Math.round(edge.affinity)}</span>
                  </label>
                  <label class="meter-row">
                    <span>Trust</span>
                    <meter min={0} max={100} value={edge.trust} />
                    <span data-testid="trust">{Math.round(edge.trust)}</span>
                  </label>
                  <Show when={edge.summary}>
                    <p class="small-text">{edge.summary}</p>
                  </Show>
                  <Show when={edge.knowledge.length > 0}>
                    <ul class="knowledge small-text" aria-label={`What ${name(edge.source)} knows about ${name(edge.target)}`}>
                      <For each={edge.knowledge}>{(fact) => <li>{fact}</li>}</For>
                    </ul>
                  </Show>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>

      <section aria-labelledby="drawer-memories">
        <h2 id="drawer-memories">
          {name(props.drawer.botId)}'s memories{' '}
          <span class="muted small-text" data-testid="pin-count" title="Pinned memories always reach the story">
            pinned {props.drawer.pinned.count}/{props.drawer.pinned.cap}
          </span>
        </h2>
        <Show when={props.drawer.memories.length > 0} fallback={<p class="muted">No memories yet. They form after each reply.</p>}>
          <ul class="plain memories">
            <For each={props.drawer.memories}>
              {(memory) => (
                <li data-testid="memory" data-pinned={memory.pinned ? 'true' : 'false'}>
                  <div class="memory-meta small-text">
                    <span>{describeFictionTime(memory.fictionTime)}</span>
                    <span class="significance" title={`Significance: ${SIGNIFICANCE[memory.significance]}`} aria-label={`Significance: ${SIGNIFICANCE[memory.significance]}`}>
                      {'●'.repeat(memory.significance)}
                      {'○'.repeat(3 - memory.significance)}
                    </span>
                    <button type="button" class="small quiet" aria-pressed={memory.pinned} disabled={busy()} onClick={() => togglePin(memory)}>
                      {memory.pinned ? (memory.autoPinned ? 'Pinned (auto)' : 'Pinned') : 'Pin'}
                    </button>
                  </div>
                  <div class="memory-text">
                    <StoryText text={memory.summary} ooc={OOC} />
                  </div>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>
    </aside>
  );
}
