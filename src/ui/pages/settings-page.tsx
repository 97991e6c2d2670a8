import { useNavigate, useSearchParams } from '@solidjs/router';
import { createSignal, Show } from 'solid-js';
import { ModelSettings } from './model-settings.tsx';
import { createStillHere } from '../still-here.ts';
import type { RelayHealth } from '../relay-health.ts';
import { formatBytes, type StorageHealth } from '../storage-health.ts';
import { BackupSection } from './backup-section.tsx';
import { ExportEverything } from './export-everything.tsx';
import { LookSection } from './look-section.tsx';
import { LanguageSection } from './language-section.tsx';
import { t } from '../i18n/index.ts';
import { PersonasSection } from './personas-section.tsx';
import { SyncSection } from './sync-section.tsx';
import { RelayTokenField } from './relay-token-field.tsx';
import { ConnectionSection } from './connection-section.tsx';
import { PictureField } from '../picture-field.tsx';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { createSyncStatus } from '../sync-status.ts';

export function SettingsPage(props: { relay: RelayHealth; storage: StorageHealth; onRelayChanged?: () => void }) {
  const client = useClient();
  const you = createLiveQuery(client, { query: 'getYou' }, () => client.engine.getYou());
  const [message, setMessage] = createSignal<{ kind: 'ok' | 'error'; text: string } | null>(null);
  /** Your picture as chosen on this page (undefined: as stored); kept when the form is saved. */
  const [avatar, setAvatar] = createSignal<string | null | undefined>(undefined);
  const [typedName, setTypedName] = createSignal<string | null>(null);
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const here = createStillHere();
  // A device joining a synced story (a pairing link, a new phone) has not had the whole story yet:
  // its name and persona are on their way, and one typed here first would replace them everywhere.
  const sync = createSyncStatus(client);
  const joining = () => {
    const status = sync.status();
    return status !== null && status.state !== 'unavailable' && !status.caughtUp;
  };
  const [writeHereAnyway, setWriteHereAnyway] = createSignal(false);
  const welcome = () => !joining() && (search.welcome === '1' || (you.state === 'ready' && !you()));

  const saveYou = async (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    try {
      const picture = avatar() === undefined ? you()?.avatar : avatar();
      await client.engine.saveYou({
        name: String(data.get('name') ?? ''),
        pronouns: String(data.get('pronouns') ?? ''),
        persona: String(data.get('persona') ?? ''),
        ...(picture ? { avatar: picture } : {}),
      });
      setMessage({ kind: 'ok', text: 'Saved.' });
      // A new user goes on to make their first bot.
      if ((await client.engine.listBots()).length === 0 && here()) navigate('/bots/new');
    } catch (e) {
      setMessage({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">{t('settings.title')}</h1>
      <Show when={welcome()}>
        <p class="welcome" role="status">
          {t('settings.welcome')}
        </p>
      </Show>
      <Show when={message()}>
        {(m) => (
          <p class={m().kind === 'error' ? 'error' : 'ok'} role={m().kind === 'error' ? 'alert' : 'status'}>
            {m().text}
          </p>
        )}
      </Show>

      <Show when={joining()}>
        <section class="joining" aria-labelledby="joining-title" data-testid="joining">
          <h2 id="joining-title">{t('settings.joiningTitle')}</h2>
          <p>{t('settings.joiningBody')}</p>
          <SyncSection client={client} />
        </section>
      </Show>

      <h2>{t('settings.whoYouAre')}</h2>
      <Show when={joining() && !writeHereAnyway() && !you()}>
        <p class="muted" data-testid="you-arrive">
          {t('settings.youArrive')}{' '}
          <button type="button" class="link" onClick={() => setWriteHereAnyway(true)}>
            {t('settings.writeHereAnyway')}
          </button>
        </p>
      </Show>
      <Show when={(!joining() || writeHereAnyway() || you()) && you.state !== 'unresolved' && you.state !== 'pending'} fallback={<Show when={!joining()}><p class="muted">{t('settings.loading')}</p></Show>}>
        <form class="stack" onSubmit={saveYou} aria-label={t('settings.whoYouAre')}>
          <label>
            {t('settings.name')}
            <input name="name" required maxLength={80} value={you()?.name ?? ''} autocomplete="off" onInput={(e) => setTypedName(e.currentTarget.value)} />
          </label>
          <PictureField
            client={client}
            name={typedName() ?? you()?.name ?? ''}
            hash={avatar() === undefined ? (you()?.avatar ?? null) : avatar()!}
            onChange={setAvatar}
          />
          <label>
            {t('settings.pronouns')}
            <input name="pronouns" maxLength={40} value={you()?.pronouns ?? ''} autocomplete="off" />
          </label>
          <label>
            {t('settings.persona')}
            <textarea name="persona" rows={3} value={you()?.persona ?? ''} />
          </label>
          <button type="submit">{t('settings.save')}</button>
        </form>
      </Show>

      <h2 id="personas">{t('settings.personas')}</h2>
      <p class="muted small-text">{t('settings.personasHint')}</p>
      <PersonasSection client={client} />

      <h2 id="language">{t('settings.language.heading')}</h2>
      <LanguageSection />

      <h2 id="look">{t('settings.look')}</h2>
      <LookSection />

      <h2 id="connection">{t('settings.connection')}</h2>
      <p data-testid="relay-state">
        {props.relay.state === 'online'
          ? props.relay.mode === 'demo'
            ? t('settings.relayOnlineDemo')
            : t('settings.relayOnline', props.relay.upstream ?? '')
          : props.relay.state === 'offline'
            ? t('settings.relayOffline')
            : props.relay.state === 'needs-token'
              ? t('settings.relayNeedsToken')
              : t('settings.relayChecking')}
      </p>
      <Show when={props.relay.state === 'online'}>
        <ConnectionSection onChanged={() => props.onRelayChanged?.()} />
      </Show>
      <details class="more-details" open={props.relay.state === 'needs-token'}>
        <summary>{t('settings.relayToken')}</summary>
        <RelayTokenField />
      </details>

      <h2>{t('settings.models')}</h2>
      <ModelSettings server={props.relay.state === 'online' ? `${props.relay.mode} ${props.relay.upstream ?? ''}` : props.relay.state} />

      <h2 id="sync">{t('settings.sync')}</h2>
      <Show when={!joining()} fallback={<p class="muted">{t('settings.syncAbove')}</p>}>
        <SyncSection client={client} />
      </Show>

      <h2>{t('settings.storage')}</h2>
      <p data-testid="storage-state">
        {props.storage.persisted ? t('settings.storedPersistently') : t('settings.storedMayClear')}
        {props.storage.usage !== null ? t('settings.used', formatBytes(props.storage.usage), formatBytes(props.storage.quota)) : '.'}
      </p>
      <BackupSection client={client} />

      <h2>{t('settings.exportEverything')}</h2>
      <ExportEverything client={client} />
    </section>
  );
}
