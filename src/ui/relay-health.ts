import { createEffect, createSignal, on, onCleanup } from 'solid-js';
import { relayFetch, relayToken } from './relay-token.ts';

export type RelayHealth =
  | { state: 'checking' }
  | { state: 'online'; mode: 'upstream' | 'demo'; upstream: string | null }
  | { state: 'offline'; reason: string }
  /**
   * The relay wants its token (RELAY_TOKEN) and this browser has none, or a wrong one; or another
   * device removed this one ("Remove this device"), which took its own token away.
   */
  | { state: 'needs-token'; hadToken: boolean; removed: boolean };

/** Polls the relay's /api/health; the app works offline for browsing, and says when it is. */
/** While the relay is away it is asked again every couple of seconds, so "Offline" goes as soon as it is back. */
const AWAY_INTERVAL_MS = 2_000;

export function createRelayHealth(intervalMs = 15_000) {
  const [health, setHealth] = createSignal<RelayHealth>({ state: 'checking' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = async () => {
    try {
      const response = await relayFetch('/api/health', { cache: 'no-store' });
      if (response.status === 401) {
        const code = ((await response.json().catch(() => null)) as { error?: { code?: unknown } } | null)?.error?.code;
        return setHealth({ state: 'needs-token', hadToken: Boolean(relayToken()), removed: code === 'device_removed' });
      }
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { mode: 'upstream' | 'demo'; upstream: string | null };
      setHealth({ state: 'online', mode: body.mode, upstream: body.upstream });
    } catch (error) {
      const wasOffline = health().state === 'offline';
      setHealth({ state: 'offline', reason: error instanceof Error ? error.message : String(error) });
      // Gone just now: switch to asking every couple of seconds.
      if (!wasOffline) schedule();
    }
  };
  // A token entered (here or in another tab) is tried at once.
  createEffect(on(relayToken, () => void check()));
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void check().finally(schedule), health().state === 'offline' ? AWAY_INTERVAL_MS : intervalMs);
  };
  schedule();
  addEventListener('online', check);
  addEventListener('offline', check);
  onCleanup(() => {
    clearTimeout(timer);
    removeEventListener('online', check);
    removeEventListener('offline', check);
  });
  return { health, check };
}
