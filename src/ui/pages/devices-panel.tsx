import { createResource, createSignal, For, Show, untrack } from 'solid-js';
import { relayJson } from '../relay-json.ts';
import { t, uiLanguage } from '../i18n/index.ts';

interface ListedDevice {
  id: string;
  name: string;
  createdAt: number;
  lastSeenAt: number;
}

interface DeviceList {
  /** The relay has no RELAY_TOKEN: it answers this computer only, and has no devices. */
  open: boolean;
  /** Which of them this browser is (null: it holds the relay's own token). */
  self: string | null;
  devices: ListedDevice[];
}

/** "3 minutes ago", "gestern": how long before now a device was last seen. */
function ago(at: number): string {
  const words = new Intl.RelativeTimeFormat(uiLanguage(), { numeric: 'auto' });
  const minutes = Math.round((Date.now() - at) / 60_000);
  if (minutes < 2) return words.format(0, 'minute');
  if (minutes < 60) return words.format(-minutes, 'minute');
  if (minutes < 48 * 60) return words.format(-Math.round(minutes / 60), 'hour');
  return words.format(-Math.round(minutes / (24 * 60)), 'day');
}

/**
 * Settings → Sync → "Devices": every device the relay lets in, with when it was last seen.
 * "Remove this device" takes a device's token away at once; this device can be renamed.
 */
export function DevicesPanel() {
  const [list, { refetch }] = createResource(() => relayJson<DeviceList>('/api/devices').catch((error: unknown) => (error instanceof Error ? error.message : String(error))));
  const [message, setMessage] = createSignal<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = createSignal(false);
  const act = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
      setMessage({ ok: true, text: done });
      await refetch();
    } catch (error) {
      setMessage({ ok: false, text: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };
  const loaded = () => {
    const value = list();
    return typeof value === 'object' && !value.open ? value : null;
  };
  return (
    <Show when={list() !== undefined && (typeof list() === 'string' || loaded())}>
      <details class="more-details" data-testid="devices" onToggle={(event) => event.currentTarget.open && void refetch()}>
        <summary>{t('devices.title', loaded()?.devices.length ?? 0)}</summary>
        <div class="stack">
          <Show when={typeof list() === 'string'}>
            <p class="error" role="alert">
              {t('devices.unreadable', list() as string)}
            </p>
          </Show>
          <Show when={loaded()}>
            {(shown) => (
              <>
                <p class="muted small-text">{t('devices.about')}</p>
                <ul class="plain device-list" aria-label={t('devices.list')}>
                  <For each={shown().devices}>
                    {(device) => (
                      <li class="row" aria-label={device.name} data-device={device.id}>
                        <span class="grow">
                          <strong>{device.name}</strong>
                          <Show when={device.id === shown().self}> ({t('devices.thisDevice')})</Show>
                          <br />
                          <span class="muted small-text">{t('devices.lastSeen', ago(device.lastSeenAt))}</span>
                        </span>
                        <button type="button" class="small" disabled={busy()} onClick={() => void act(() => relayJson(`/api/devices/${device.id}`, { method: 'DELETE' }), t('devices.removed', device.name))}>
                          {t('devices.remove')}
                        </button>
                      </li>
                    )}
                  </For>
                </ul>
                <Show when={shown().devices.find((d) => d.id === shown().self)}>
                  {(self) => (
                    <form
                      class="row devices-rename"
                      onSubmit={(event) => {
                        event.preventDefault();
                        const name = String(new FormData(event.currentTarget).get('name') ?? '');
                        void act(() => relayJson(`/api/devices/${self().id}`, { method: 'PUT', body: JSON.stringify({ name }) }), t('devices.renamed'));
                      }}
                    >
                      <label class="grow">
                        {t('devices.name')}
                        {/* Read once: the list refreshes on every open, and a bound value would put the old name back over what the player is typing. */}
                        <input name="name" required maxLength={60} value={untrack(() => self().name)} />
                      </label>
                      <button type="submit" disabled={busy()}>
                        {t('devices.rename')}
                      </button>
                    </form>
                  )}
                </Show>
              </>
            )}
          </Show>
          <Show when={message()}>
            {(m) => (
              <p class={m().ok ? 'ok' : 'error'} role={m().ok ? 'status' : 'alert'}>
                {m().text}
              </p>
            )}
          </Show>
        </div>
      </details>
    </Show>
  );
}
