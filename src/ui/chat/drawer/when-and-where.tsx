import { createSignal, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { describeFictionTime, storyTimeAgo, storyTimeSpan } from '../../../engine/for-ui.ts';
import { SkipAhead } from './skip-ahead.tsx';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

/** When and where: the clock (set by hand, or skipped ahead), the weather, where the story is heading, the place, the scene and its end. */
export function WhenAndWhere(props: { d: DrawerScope }) {
  const d = props.d;
  const [confirmEnd, setConfirmEnd] = createSignal(false);
  return (
    <section aria-labelledby="drawer-clock">
      <h2 id="drawer-clock">{t('drawer.clock')}</h2>
      <p data-testid="drawer-time">
        <Editable label="time" kind="datetime" value={d.drawer().fictionTime} edited={d.edited({ type: 'chat_state' }, 'fictionTime')} save={d.edit({ type: 'chat_state' }, 'fictionTime')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="fictionTime" label="time" />}>
          {describeFictionTime(d.drawer().fictionTime)}
        </Editable>
      </p>
      <p class="small-text">
        <Editable label="weather" value={d.drawer().weather} edited={d.edited({ type: 'chat_state' }, 'weather')} save={d.edit({ type: 'chat_state' }, 'weather')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="weather" label="weather" />}>
          <span class="muted">Weather: </span>
          {d.drawer().weather || '—'}
        </Editable>
      </p>
      <p class="small-text">
        <Editable label="where the story is heading" kind="long" value={d.drawer().narrativeAnchor} edited={d.edited({ type: 'chat_state' }, 'narrativeAnchor')} save={d.edit({ type: 'chat_state' }, 'narrativeAnchor')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="narrativeAnchor" label="where the story is heading" />}>
          <span class="muted">Heading: </span>
          {d.drawer().narrativeAnchor || '—'}
        </Editable>
      </p>
      <SkipAhead d={d} />
      <p data-testid="drawer-place">
        <Show when={d.drawer().place} fallback={<span class="muted">No place set.</span>}>
          {(place) => (
            <>
              <Editable label="place name" value={place().name} edited={d.edited({ type: 'container', id: place().id }, 'name')} save={d.edit({ type: 'container', id: place().id }, 'name')} actions={<ValueOrigin d={d} target={{ type: 'container', id: place().id }} field="name" label="place name" />}>
                <strong>{place().name}</strong>
              </Editable>{' '}
              <Editable label="kind of place" value={place().type} edited={d.edited({ type: 'container', id: place().id }, 'type')} save={d.edit({ type: 'container', id: place().id }, 'type')} actions={<ValueOrigin d={d} target={{ type: 'container', id: place().id }} field="type" label="kind of place" />}>
                <span class="muted">({place().type})</span>
              </Editable>
            </>
          )}
        </Show>
      </p>
      <Show when={d.drawer().scene}>
        {(scene) => (
          <p class="muted small-text">
            Scene began {storyTimeAgo(scene().openedFictionTime, d.drawer().fictionTime)} ({describeFictionTime(scene().openedFictionTime)}), with{' '}
            {scene().participants.map(d.name).join(' and ')}.
            <Show when={d.drawer().lastSceneEnded}>
              {(ended) => {
                const gap = () => storyTimeSpan(ended(), scene().openedFictionTime);
                return <Show when={gap() && gap() !== 'a moment'}> {gap()} after the last scene.</Show>;
              }}
            </Show>
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
