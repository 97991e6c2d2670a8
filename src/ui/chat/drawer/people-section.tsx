import { For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { Avatar } from '../../avatar.tsx';
import { createLiveQuery } from '../../live-query.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

/** Who is doing what: each one present or away, their activity, posture and attention; a guest comes and goes. */
export function PeopleSection(props: { d: DrawerScope }) {
  const d = props.d;
  const bots = createLiveQuery(d.client, { query: 'listBots' }, () => d.client.engine.listBots());
  const personas = createLiveQuery(d.client, { query: 'listPersonas' }, () => d.client.engine.listPersonas());
  const chosen = createLiveQuery(d.client, { query: 'chatPersona', chatId: d.chatId }, () => d.client.engine.chatPersona(d.chatId()));
  return (
    <Show when={d.drawer().activities.length > 0}>
      <section aria-labelledby="drawer-people">
        <h2 id="drawer-people">{t('drawer.people')}</h2>
        <Show when={(personas() ?? []).length > 1}>
          <label class="reply-order small-text">
            {t('people.playAs')}
            <select
              value={chosen()?.id ?? ''}
              disabled={d.busy()}
              onChange={(event) => {
                const personaId = event.currentTarget.value;
                void d.act(() => d.client.engine.choosePersona(d.chatId(), personaId));
              }}
            >
              <For each={personas() ?? []}>{(persona) => <option value={persona.id}>{persona.name}</option>}</For>
            </select>
          </label>
        </Show>
        <Show when={d.drawer().activities.filter((a) => a.entity !== 'you').length > 1}>
          <label class="reply-order small-text">
            {t('people.whoAnswers')}
            <select
              value={d.drawer().replyOrder}
              disabled={d.busy()}
              onChange={(event) => {
                const order = event.currentTarget.value;
                void d.act(() => d.edit({ type: 'chat_state' }, 'replyOrder')(order));
              }}
            >
              <option value="named">{t('people.orders.named')}</option>
              <option value="rotate">{t('people.orders.rotate')}</option>
              <option value="all">{t('people.orders.all')}</option>
              <option value="asked">{t('people.orderAsked', d.name(d.drawer().botId))}</option>
            </select>
          </label>
        </Show>
        <ul class="plain">
          <For each={d.drawer().activities}>
            {(a) => (
              <li>
                <Avatar client={d.client} name={d.name(a.entity)} hash={a.entity === 'you' ? (chosen()?.avatar ?? null) : (bots()?.find((b) => b.id === a.entity)?.avatar ?? null)} />{' '}
                <strong>{d.name(a.entity)}</strong>
                <Show when={a.status !== 'present'}>
                  <span class="muted"> ({t(`people.status.${a.status as 'present'}`)})</span>
                </Show>
                <Show when={a.muted}>
                  <span class="muted">{t('people.muted')}</span>
                </Show>
                {/* In a group scene, each bot present can be given the turn, or kept silent. */}
                <Show when={a.entity !== 'you' && a.status === 'present' && d.drawer().activities.filter((o) => o.entity !== 'you' && o.status === 'present').length > 1}>
                  <span class="voice-actions">
                    <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.letSpeak(d.chatId(), a.entity))}>
                      {t('people.letSpeak', d.name(a.entity))}
                    </button>
                    <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void d.act(() => d.edit({ type: 'activity', entity: a.entity }, 'muted')(a.muted ? 0 : 1))}>
                      {a.muted ? t('people.unmute', d.name(a.entity)) : t('people.mute', d.name(a.entity))}
                    </button>
                  </span>
                </Show>
                {/* A guest comes and goes; the host and you stay. */}
                <Show when={a.entity !== 'you' && a.entity !== d.drawer().botId}>
                  <button
                    type="button"
                    class="small quiet guest-toggle"
                    disabled={d.busy()}
                    onClick={() => void d.act(() => d.client.engine.setGuest(d.chatId(), a.entity, a.status !== 'present'))}
                  >
                    {a.status === 'present' ? t('people.leaves', d.name(a.entity)) : t('people.bringBack', d.name(a.entity))}
                  </button>
                </Show>
                <div class="activity-fields small-text">
                  <Editable label={t('people.doing', d.name(a.entity))} value={a.action.verb} edited={d.edited({ type: 'activity', entity: a.entity }, 'doing')} save={d.edit({ type: 'activity', entity: a.entity }, 'doing')} actions={<ValueOrigin d={d} target={{ type: 'activity', entity: a.entity }} field="doing" label={t('people.doing', d.name(a.entity))} />}>
                    <span class="muted">{t('people.doingShown')}</span>
                    {a.action.verb || '—'}
                  </Editable>
                  <Editable label={t('people.posture', d.name(a.entity))} value={a.posture} edited={d.edited({ type: 'activity', entity: a.entity }, 'posture')} save={d.edit({ type: 'activity', entity: a.entity }, 'posture')} actions={<ValueOrigin d={d} target={{ type: 'activity', entity: a.entity }} field="posture" label={t('people.posture', d.name(a.entity))} />}>
                    <span class="muted">{t('people.postureShown')}</span>
                    {a.posture || '—'}
                  </Editable>
                  <Editable label={t('people.attention', d.name(a.entity))} value={a.attention} edited={d.edited({ type: 'activity', entity: a.entity }, 'attention')} save={d.edit({ type: 'activity', entity: a.entity }, 'attention')} actions={<ValueOrigin d={d} target={{ type: 'activity', entity: a.entity }} field="attention" label={t('people.attention', d.name(a.entity))} />}>
                    <span class="muted">{t('people.attentionShown')}</span>
                    {a.attention || '—'}
                  </Editable>
                </div>
              </li>
            )}
          </For>
        </ul>
      </section>
    </Show>
  );
}
