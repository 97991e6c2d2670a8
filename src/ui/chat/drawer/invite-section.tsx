import { createSignal, For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { createLiveQuery } from '../../live-query.ts';
import type { DrawerScope } from './drawer-scope.ts';

/** Invite someone: another bot joins the scene as a guest. */
export function InviteSection(props: { d: DrawerScope }) {
  const d = props.d;
  const bots = createLiveQuery(d.client, { query: 'listBots' }, () => d.client.engine.listBots());
  /** Bots who could join: not the host, not already in the chat (someone away is brought back from their row). */
  const invitable = () => (bots() ?? []).filter((b) => b.id !== d.drawer().botId && !d.drawer().activities.some((a) => a.entity === b.id));
  const [guest, setGuest] = createSignal('');
  return (
    <Show when={invitable().length > 0}>
      <section aria-labelledby="drawer-invite">
        <h2 id="drawer-invite">{t('drawer.invite')}</h2>
        <p class="small-text muted">{t('drawer.inviteHint')}</p>
        <div class="button-row">
          <select aria-label={t('people.inviteBot')} value={guest()} onChange={(e) => setGuest(e.currentTarget.value)}>
            <For each={invitable()}>{(bot) => <option value={bot.id}>{bot.name}</option>}</For>
          </select>
          <button
            type="button"
            class="small"
            disabled={d.busy()}
            onClick={() => void d.act(() => d.client.engine.setGuest(d.chatId(), invitable().some((b) => b.id === guest()) ? guest() : invitable()[0]!.id, true))}
          >
            {t('people.invite')}
          </button>
        </div>
      </section>
    </Show>
  );
}
