import { createEffect, createSignal, on, onCleanup, onMount } from 'solid-js';
import { SYNC_TOPIC } from '../engine/for-first-screen.ts';
import type { SyncStatus } from '../engine/for-ui.ts';
import type { AppClient } from './engine-client.ts';

/** A pull this large with no total known (a server that does not say) still counts as arriving. */
const LARGE_PULL = 500;

/**
 * Where this device stands with the sync server, live: asked once, then every change the leader
 * publishes, and asked again when another tab takes the lead (its sync is the one running then).
 */
export function createSyncStatus(client: AppClient) {
  const [status, setStatus] = createSignal<SyncStatus | null>(null);
  const [loaded, setLoaded] = createSignal(false);
  const load = () =>
    void client.engine.syncStatus().then((s) => {
      setStatus(s);
      setLoaded(true);
    });
  onMount(load);
  onCleanup(
    client.onPublish((topic, _seq, data) => {
      if (topic === SYNC_TOPIC) setStatus(data as SyncStatus);
    }),
  );
  createEffect(on(() => client.status().epoch, load, { defer: true }));
  return { status, loaded, reload: load };
}

/**
 * The story is still arriving from the server (a device's first pull, or one after long away):
 * how far it has come, or null once it is whole here. A live change or two never counts.
 */
export function storyArriving(status: SyncStatus | null): { arrived: number; total: number | null } | null {
  if (!status || status.pulling === null || status.state === 'paused') return null;
  const { pulling, pullTotal } = status;
  if (pullTotal !== null) return pulling < pullTotal ? { arrived: pulling, total: pullTotal } : null;
  return pulling >= LARGE_PULL ? { arrived: pulling, total: null } : null;
}
