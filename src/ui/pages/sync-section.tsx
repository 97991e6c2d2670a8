import { lazy, Show } from 'solid-js';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import type { SyncProblem, SyncStatus } from '../../engine/for-ui.ts';
import { createSyncStatus } from '../sync-status.ts';
import { pairingRefused } from '../relay-token.ts';
import { t, uiLanguage } from '../i18n/index.ts';

// The QR encoder loads only when Settings shows sync.
const PairingPanel = lazy(() => import('./pairing.tsx').then((m) => ({ default: m.PairingPanel })));
const DevicesPanel = lazy(() => import('./devices-panel.tsx').then((m) => ({ default: m.DevicesPanel })));

const clock = (ms: number) => new Date(ms).toLocaleTimeString(uiLanguage(), { timeStyle: 'short' });

/** What stopped sync, in a sentence that names what to do; the technical detail goes under "Details". */
function problemSentence(problem: SyncProblem): string {
  switch (problem) {
    case 'relay-token':
      return t('sync.problemRelayToken');
    case 'device-removed':
      return t('sync.problemDeviceRemoved');
    case 'generation-changed':
      return t('sync.starting');
    case 'rewrite-busy':
      return t('sync.problemRewriteBusy');
    case 'offline':
      return t('sync.problemOffline');
    case 'server-down':
      return t('sync.problemServerDown');
    case 'server-login':
      return t('sync.problemServerLogin');
    case 'passphrase-needed':
      return t('sync.problemPassphraseNeeded');
    case 'passphrase-wrong':
      return t('sync.problemPassphraseWrong');
    case 'passphrase-refused':
      return t('sync.problemPassphraseRefused');
    case 'server-data':
      return t('sync.problemServerData');
    case 'refused':
      return t('sync.problemRefused');
  }
}

const PASSPHRASE_PROBLEMS: readonly (SyncProblem | null)[] = ['passphrase-needed', 'passphrase-wrong', 'passphrase-refused'];

function describe(status: SyncStatus | null): string {
  if (!status) return t('sync.privateWindow');
  switch (status.state) {
    case 'starting':
      return t('sync.starting');
    case 'unavailable':
      return t('sync.unavailable');
    case 'paused':
      return t('sync.paused');
    case 'syncing':
      return t('sync.syncing');
    case 'up-to-date':
      return status.lastSyncedAt ? t('sync.upToDateAt', clock(status.lastSyncedAt)) : t('sync.upToDate');
    case 'offline':
    case 'error':
      return problemSentence(status.problem ?? (status.state === 'offline' ? 'offline' : 'refused'));
  }
}

/** A bar that fills while a count of known size goes up: "Sending the story: 1,500 of 25,008 events". */
function CountBar(props: { done: number | null | undefined; total: number | null | undefined; sentence: (what: string) => string; label: string }) {
  return (
    <Show when={props.done != null && props.total ? props.total : null}>
      {(total) => (
        <label>
          {props.sentence(t('sync.countOf', props.done!, total()))}
          <progress aria-label={props.label} value={props.done!} max={total()} />
        </label>
      )}
    </Show>
  );
}

/**
 * Settings → Sync: where this device stands with the sync server, live (the leader publishes each
 * change), with "Sync now" and "Pause sync on this device".
 */
export function SyncSection(props: { client: AppClient }) {
  const { status, loaded } = createSyncStatus(props.client);
  const { run, busy, error } = createAction();

  const paused = () => status()?.state === 'paused';
  /** The server's story is sealed and this device's passphrase is missing or not its own: the form takes the story's. */
  const asked = () => status()?.problem === 'passphrase-needed' || status()?.problem === 'passphrase-wrong';
  const active = () => status() !== null && status()!.state !== 'unavailable';

  return (
    <div class="stack" data-testid="sync-section">
      <Show when={pairingRefused()}>
        <p class="error" role="alert" data-testid="pairing-refused">
          {t('pairing.refused')}
        </p>
      </Show>
      <Show when={loaded()} fallback={<p class="muted">{t('sync.checking')}</p>}>
        <p role="status" data-testid="sync-state" data-state={status()?.state ?? 'none'} data-problem={status()?.problem ?? undefined}>
          {describe(status())}
        </p>
        <Show when={status()?.problem && status()?.detail}>
          <details class="more-details small-text">
            <summary>{t('sync.problemDetails')}</summary>
            <p class="muted" data-testid="sync-detail">{status()!.detail}</p>
          </details>
        </Show>
        <Show when={status()?.pulling != null}>
          <label>
            {t('sync.receivingOf', status()!.pullTotal ? t('sync.countOf', status()!.pulling!, status()!.pullTotal!) : t('sync.events', status()!.pulling!))}
            {/* No value at all while the total is unknown (indeterminate): Firefox throws on an undefined one. */}
            <Show when={status()!.pullTotal} fallback={<progress aria-label={t('sync.receiving')} />}>
              {(total) => <progress aria-label={t('sync.receiving')} value={status()!.pulling ?? 0} max={total()} />}
            </Show>
          </label>
        </Show>
        <CountBar done={status()?.resealing} total={status()?.resealTotal} sentence={(what) => t('sync.sealingOf', what)} label={t('sync.sealing')} />
        <CountBar done={status()?.pushing} total={status()?.pushTotal} sentence={(what) => t('sync.sendingOf', what)} label={t('sync.sending')} />
        <Show when={active() && (status()!.pulled > 0 || status()!.pushed > 0)}>
          <p class="muted">
            {t('sync.sinceStart', t('sync.events', status()!.pulled), t('sync.events', status()!.pushed))}
          </p>
        </Show>
        <Show when={(status()?.refused ?? 0) > 0}>
          <p class="error" role="alert">
            {t('sync.refused', t('sync.events', status()!.refused))}
          </p>
        </Show>
        <Show when={active()}>
          <div class="row">
            <button type="button" disabled={busy() || paused()} onClick={() => void run(() => props.client.engine.syncNow())}>
              {t('sync.now')}
            </button>
            <button type="button" disabled={busy()} onClick={() => void run(() => props.client.engine.setSyncPaused(!paused()))}>
              {paused() ? t('sync.resume') : t('sync.pause')}
            </button>
          </div>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">
            {error()}
          </p>
        </Show>
        <Show when={active()}>
          <details class="more-details" open={PASSPHRASE_PROBLEMS.includes(status()?.problem ?? null)}>
            {/* Only a passphrase the server took is "encrypted": a refused one says so instead. */}
            <summary>
              {status()?.problem === 'passphrase-wrong' || status()?.problem === 'passphrase-refused'
                ? t('sync.passphraseNotAccepted')
                : status()?.encrypted && status()?.problem !== 'passphrase-needed'
                  ? t('sync.encrypted')
                  : t('sync.encrypt')}
            </summary>
            <form
              class="stack"
              aria-label={t('sync.passphraseForm')}
              onSubmit={(event) => {
                event.preventDefault();
                const value = String(new FormData(event.currentTarget).get('passphrase') ?? '');
                // Asked for the story's passphrase: this device takes it. Otherwise the server's
                // story is written anew, sealed with it (encrypted now, or with a new passphrase).
                void run(() => (asked() ? props.client.engine.setSyncPassphrase(value) : props.client.engine.resealSync(value)));
                event.currentTarget.reset();
              }}
            >
              {/* Asked for the story's passphrase, the sentence above says what to enter. */}
              <Show when={!asked()}>
                <p class="muted">{status()?.encrypted ? t('sync.resealAbout') : t('sync.passphraseAbout')}</p>
              </Show>
              <label>
                {asked() || !status()?.encrypted ? t('sync.passphrase') : t('sync.newPassphrase')}
                <input name="passphrase" type="password" minLength={8} maxLength={500} required autocomplete="new-password" />
              </label>
              <div class="row">
                <button type="submit" disabled={busy() || status()?.resealing != null}>
                  {asked() ? t('sync.savePassphrase') : status()?.encrypted ? t('sync.changePassphrase') : t('sync.encryptNow')}
                </button>
                <Show when={status()?.encrypted}>
                  <button type="button" disabled={busy()} onClick={() => void run(() => props.client.engine.setSyncPassphrase(null))}>
                    {t('sync.forgetPassphrase')}
                  </button>
                </Show>
              </div>
            </form>
          </details>
          <PairingPanel />
          <DevicesPanel />
        </Show>
      </Show>
    </div>
  );
}
