import { createSignal, onCleanup } from 'solid-js';

export type RelayHealth =
  | { state: 'checking' }
  | { state: 'online'; mode: 'upstream' | 'demo'; upstream: string | null }
  | { state: 'offline'; reason: string };

/** Polls the relay's /api/health; the app works offline for browsing, and says when it is. */
export function createRelayHealth(intervalMs = 15_000) {
  const [health, setHealth] = createSignal<RelayHealth>({ state: 'checking' });
  const check = async () => {
    try {
      const response = await fetch('/api/health', { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { mode: 'upstream' | 'demo'; upstream: string | null };
      setHealth({ state: 'online', mode: body.mode, upstream: body.upstream });
    } catch (error) {
      setHealth({ state: 'offline', reason: error instanceof Error ? error.message : String(error) });
    }
  };
  void check();
  const timer = setInterval(check, intervalMs);
  addEventListener('online', check);
  addEventListener('offline', check);
  onCleanup(() => {
    clearInterval(timer);
    removeEventListener('online', check);
    removeEventListener('offline', check);
  });
  return { health, check };
}
