import { createEffect, createSignal, lazy, on, onCleanup, onMount, Show } from 'solid-js';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import { SYNC_TOPIC, type SyncStatus } from '../../engine/for-ui.ts';

// The QR encoder loads only when Settings shows sync.
const PairingPanel = lazy(() => import('./pairing.tsx').then((m) => ({ default: m.PairingPanel })));

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
const clock = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { timeStyle: 'short' });

function describe(status: SyncStatus | null): string {
  if (!status) return 'Sync does not run in a private window: nothing here is kept.';
  switch (status.state) {
    case 'starting':
      return 'Starting sync…';
    case 'unavailable':
      return 'Sync is not set up on the relay. Set SYNC_COUCHDB_URL where the relay runs to play on your other devices too.';
    case 'paused':
      return 'Sync is paused on this device.';
    case 'syncing':
      return 'Syncing…';
    case 'up-to-date':
      return `Up to date${status.lastSyncedAt ? ` (last synced ${clock(status.lastSyncedAt)})` : ''}.`;
    case 'offline':
      return `Offline: ${status.detail ?? 'the sync server cannot be reached'} Trying again; what you write here is kept and sent later.`;
    case 'error':
      return `Sync stopped: ${status.detail ?? 'the server refused'}`;
  }
}

/**
 * Settings → Sync: where this device stands with the sync server, live (the leader publishes each
 * change), with "Sync now" and "Pause sync on this device".
 */
export function SyncSection(props: { client: AppClient }) {
  const [status, setStatus] = createSignal<SyncStatus | null>(null);
  const [loaded, setLoaded] = createSignal(false);
  const { run, busy, error } = createAction();
  const load = () =>
    void props.client.engine.syncStatus().then((s) => {
      setStatus(s);
      setLoaded(true);
    });
  onMount(load);
  onCleanup(
    props.client.onPublish((topic, _seq, data) => {
      if (topic === SYNC_TOPIC) setStatus(data as SyncStatus);
    }),
  );
  // Another tab took over: its leader's sync is the one running now.
  createEffect(on(() => props.client.status().epoch, load, { defer: true }));

  const paused = () => status()?.state === 'paused';
  const active = () => status() !== null && status()!.state !== 'unavailable';

  return (
    <div class="stack" data-testid="sync-section">
      <Show when={loaded()} fallback={<p class="muted">Checking sync…</p>}>
        <p role="status" data-testid="sync-state" data-state={status()?.state ?? 'none'}>
          {describe(status())}
        </p>
        <Show when={status()?.pulling != null}>
          <label>
            Receiving the story: {status()!.pullTotal ? `${status()!.pulling!.toLocaleString()} of ${plural(status()!.pullTotal!, 'event')}` : plural(status()!.pulling!, 'event')}
            {/* No value at all while the total is unknown (indeterminate): Firefox throws on an undefined one. */}
            <Show when={status()!.pullTotal} fallback={<progress aria-label="Receiving the story" />}>
              {(total) => <progress aria-label="Receiving the story" value={status()!.pulling ?? 0} max={total()} />}
            </Show>
          </label>
        </Show>
        <Show when={active() && (status()!.pulled > 0 || status()!.pushed > 0)}>
          <p class="muted">
            Since this tab started: {plural(status()!.pulled, 'event')} received, {plural(status()!.pushed, 'event')} sent.
          </p>
        </Show>
        <Show when={(status()?.refused ?? 0) > 0}>
          <p class="error" role="alert">
            {plural(status()!.refused, 'event')} of this device exist on the server in another version. Both are kept; nothing was overwritten.
          </p>
        </Show>
        <Show when={active()}>
          <div class="row">
            <button type="button" disabled={busy() || paused()} onClick={() => void run(() => props.client.engine.syncNow())}>
              Sync now
            </button>
            <button type="button" disabled={busy()} onClick={() => void run(() => props.client.engine.setSyncPaused(!paused()))}>
              {paused() ? 'Resume sync' : 'Pause sync on this device'}
            </button>
          </div>
        </Show>
        <Show when={error()}>
          <p class="error" role="alert">
            {error()}
          </p>
        </Show>
        <Show when={active()}>
          <details class="more-details" open={/passphrase/.test(status()?.detail ?? '')}>
            <summary>{status()?.encrypted ? 'Encrypted with a passphrase' : 'Encrypt with a passphrase'}</summary>
            <form
              class="stack"
              aria-label="Sync passphrase"
              onSubmit={(event) => {
                event.preventDefault();
                const value = String(new FormData(event.currentTarget).get('passphrase') ?? '');
                void run(() => props.client.engine.setSyncPassphrase(value));
                event.currentTarget.reset();
              }}
            >
              <p class="muted">
                The server then holds only ciphertext. Use the same passphrase on every device, chosen before the first sync; it stays on this device and cannot be recovered.
              </p>
              <label>
                Passphrase
                <input name="passphrase" type="password" minLength={8} maxLength={500} required autocomplete="new-password" />
              </label>
              <div class="row">
                <button type="submit" disabled={busy()}>
                  Save passphrase
                </button>
                <Show when={status()?.encrypted}>
                  <button type="button" disabled={busy()} onClick={() => void run(() => props.client.engine.setSyncPassphrase(null))}>
                    Forget passphrase
                  </button>
                </Show>
              </div>
            </form>
          </details>
          <PairingPanel />
        </Show>
      </Show>
    </div>
  );
}
