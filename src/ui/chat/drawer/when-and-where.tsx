import { createSignal, For, Show } from 'solid-js';
import { describeFictionTime } from '../../../engine/for-ui.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';

const CLOCK_STEPS = [
  { label: '+10 min', minutes: 10 },
  { label: '+1 hour', minutes: 60 },
  { label: '+8 hours', minutes: 480 },
];

/** When and where: the clock and its steps, the weather, where the story is heading, the place, the scene and its end. */
export function WhenAndWhere(props: { d: DrawerScope }) {
  const d = props.d;
  const [confirmEnd, setConfirmEnd] = createSignal(false);
  return (
    <section aria-labelledby="drawer-clock">
      <h2 id="drawer-clock">When and where</h2>
      <p data-testid="drawer-time">{describeFictionTime(d.drawer().fictionTime)}</p>
      <p class="small-text">
        <Editable label="weather" value={d.drawer().weather} edited={d.edited({ type: 'chat_state' }, 'weather')} save={d.edit({ type: 'chat_state' }, 'weather')}>
          <span class="muted">Weather: </span>
          {d.drawer().weather || '—'}
        </Editable>
      </p>
      <p class="small-text">
        <Editable label="where the story is heading" kind="long" value={d.drawer().narrativeAnchor} edited={d.edited({ type: 'chat_state' }, 'narrativeAnchor')} save={d.edit({ type: 'chat_state' }, 'narrativeAnchor')}>
          <span class="muted">Heading: </span>
          {d.drawer().narrativeAnchor || '—'}
        </Editable>
      </p>
      <div class="button-row">
        <For each={CLOCK_STEPS}>
          {(step) => (
            <button type="button" class="small" disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.advanceClock(d.chatId(), step.minutes))}>
              {step.label}
            </button>
          )}
        </For>
      </div>
      <p data-testid="drawer-place">
        <Show when={d.drawer().place} fallback={<span class="muted">No place set.</span>}>
          {(place) => (
            <>
              <Editable label="place name" value={place().name} edited={d.edited({ type: 'container', id: place().id }, 'name')} save={d.edit({ type: 'container', id: place().id }, 'name')}>
                <strong>{place().name}</strong>
              </Editable>{' '}
              <Editable label="kind of place" value={place().type} edited={d.edited({ type: 'container', id: place().id }, 'type')} save={d.edit({ type: 'container', id: place().id }, 'type')}>
                <span class="muted">({place().type})</span>
              </Editable>
            </>
          )}
        </Show>
      </p>
      <Show when={d.drawer().scene}>
        {(scene) => (
          <p class="muted small-text">
            Scene since {describeFictionTime(scene().openedFictionTime)}, with {scene().participants.map(d.name).join(' and ')}.
          </p>
        )}
      </Show>
      <Show
        when={confirmEnd()}
        fallback={
          <button type="button" class="small" disabled={d.busy() || !d.drawer().scene} onClick={() => setConfirmEnd(true)}>
            End scene
          </button>
        }
      >
        <div class="button-row">
          <span>End this scene and summarise it?</span>
          <button type="button" class="small" onClick={() => void d.act(() => d.client.engine.closeScene(d.chatId())).then(() => setConfirmEnd(false))}>
            End it
          </button>
          <button type="button" class="small quiet" onClick={() => setConfirmEnd(false)}>
            Cancel
          </button>
        </div>
      </Show>
    </section>
  );
}
