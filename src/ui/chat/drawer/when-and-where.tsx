import { createSignal, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { fictionMinutesBetween } from '../../../engine/for-ui.ts';
import { formatStorySpan, formatStoryTime, formatStoryTimeAgo } from '../../i18n/format.ts';
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
        <Editable label={t('clock.time')} kind="datetime" value={d.drawer().fictionTime} edited={d.edited({ type: 'chat_state' }, 'fictionTime')} save={d.edit({ type: 'chat_state' }, 'fictionTime')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="fictionTime" label={t('clock.time')} />}>
          {formatStoryTime(d.drawer().fictionTime)}
        </Editable>
      </p>
      <p class="small-text">
        <Editable label={t('clock.weather')} value={d.drawer().weather} edited={d.edited({ type: 'chat_state' }, 'weather')} save={d.edit({ type: 'chat_state' }, 'weather')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="weather" label={t('clock.weather')} />}>
          <span class="muted">{t('clock.weatherShown')}</span>
          {d.drawer().weather || '—'}
        </Editable>
      </p>
      <p class="small-text">
        <Editable label={t('clock.heading')} kind="long" value={d.drawer().narrativeAnchor} edited={d.edited({ type: 'chat_state' }, 'narrativeAnchor')} save={d.edit({ type: 'chat_state' }, 'narrativeAnchor')} actions={<ValueOrigin d={d} target={{ type: 'chat_state' }} field="narrativeAnchor" label={t('clock.heading')} />}>
          <span class="muted">{t('clock.headingShown')}</span>
          {d.drawer().narrativeAnchor || '—'}
        </Editable>
      </p>
      <SkipAhead d={d} />
      <p data-testid="drawer-place">
        <Show when={d.drawer().place} fallback={<span class="muted">{t('clock.noPlace')}</span>}>
          {(place) => (
            <>
              <Editable label={t('clock.placeName')} value={place().name} edited={d.edited({ type: 'container', id: place().id }, 'name')} save={d.edit({ type: 'container', id: place().id }, 'name')} actions={<ValueOrigin d={d} target={{ type: 'container', id: place().id }} field="name" label={t('clock.placeName')} />}>
                <strong>{place().name}</strong>
              </Editable>{' '}
              <Editable label={t('clock.placeKind')} value={place().type} edited={d.edited({ type: 'container', id: place().id }, 'type')} save={d.edit({ type: 'container', id: place().id }, 'type')} actions={<ValueOrigin d={d} target={{ type: 'container', id: place().id }} field="type" label={t('clock.placeKind')} />}>
                <span class="muted">({place().type})</span>
              </Editable>
            </>
          )}
        </Show>
      </p>
      <Show when={d.drawer().scene}>
        {(scene) => (
          <p class="muted small-text">
            {t('clock.sceneBegan', formatStoryTimeAgo(scene().openedFictionTime, d.drawer().fictionTime), formatStoryTime(scene().openedFictionTime), scene().participants.map(d.name).join(t('clock.and')))}
            <Show when={d.drawer().lastSceneEnded}>
              {(ended) => {
                const gap = () => formatStorySpan(ended(), scene().openedFictionTime);
                return <Show when={gap() && fictionMinutesBetween(ended(), scene().openedFictionTime) >= 2}>{t('clock.afterLastScene', gap())}</Show>;
              }}
            </Show>
          </p>
        )}
      </Show>
      <Show
        when={confirmEnd()}
        fallback={
          <button type="button" class="small" disabled={d.busy() || !d.drawer().scene} onClick={() => setConfirmEnd(true)}>
            {t('clock.endScene')}
          </button>
        }
      >
        <div class="button-row">
          <span>{t('clock.endSceneAsk')}</span>
          <button type="button" class="small" onClick={() => void d.act(() => d.client.engine.closeScene(d.chatId())).then(() => setConfirmEnd(false))}>
            {t('clock.endIt')}
          </button>
          <button type="button" class="small quiet" onClick={() => setConfirmEnd(false)}>
            {t('clock.cancel')}
          </button>
        </div>
      </Show>
    </section>
  );
}
