import { createSignal } from 'solid-js';

/**
 * This browser's token for the relay: a token of its own (`rpe_d_…`), which the relay gives a
 * device for sync and the model proxy and which "Remove this device" takes back; or, until it can
 * be traded for one, the relay's own token (`RELAY_TOKEN`) as the player entered it. Kept in this
 * browser only: never in the event log, so never in a backup or an export.
 */
const KEY = 'roleplay-engine/relay-token';
export const DEVICE_TOKEN = 'rpe_d_';
/** A pairing link carries a one-time code (or, from before, the relay token) in its fragment, which browsers never send to a server. */
export const PAIR = '#pair=';

const [token, setTokenSignal] = createSignal(localStorage.getItem(KEY) ?? '');
addEventListener('storage', (event: StorageEvent) => {
  if (event.key === KEY) setTokenSignal(event.newValue ?? '');
});

export const relayToken = token;

/** Whether this browser holds a token of its own (not the relay's shared one). */
export const hasDeviceToken = () => token().startsWith(DEVICE_TOKEN);

/** The token as stored now (another tab may have changed it since this one last heard), and heard here too. */
export function storedRelayToken(): string {
  const stored = localStorage.getItem(KEY) ?? '';
  setTokenSignal(stored);
  return stored;
}

/** Keeps this browser's token (every tab hears of it); '' forgets it. */
export function keepRelayToken(value: string): void {
  if (value) localStorage.setItem(KEY, value);
  else localStorage.removeItem(KEY);
  setTokenSignal(value);
}

const [refused, setRefused] = createSignal(false);
/** This tab opened a pairing link the relay no longer takes (used, or past its hour): Settings → Sync says so. */
export const pairingRefused = refused;
export const refusePairing = () => setRefused(true);

/** `fetch` for the relay's `/api/`, carrying the token when there is one. */
export function relayFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token() && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token()}`);
  return fetch(path, { ...init, headers });
}
