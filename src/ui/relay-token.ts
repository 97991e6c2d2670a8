import { createSignal } from 'solid-js';

/**
 * The relay's token (`RELAY_TOKEN`, needed when the relay listens beyond this computer). Kept in
 * this browser only: never in the event log, so never in a backup or an export.
 */
const KEY = 'roleplay-engine/relay-token';

const [token, setTokenSignal] = createSignal(localStorage.getItem(KEY) ?? '');
addEventListener('storage', (event: StorageEvent) => {
  if (event.key === KEY) setTokenSignal(event.newValue ?? '');
});

export const relayToken = token;

export function saveRelayToken(value: string): void {
  const trimmed = value.trim();
  if (trimmed) localStorage.setItem(KEY, trimmed);
  else localStorage.removeItem(KEY);
  setTokenSignal(trimmed);
}

/** `fetch` for the relay's `/api/`, carrying the token when there is one. */
export function relayFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token()) headers.set('Authorization', `Bearer ${token()}`);
  return fetch(path, { ...init, headers });
}
