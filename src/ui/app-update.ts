import { createSignal } from 'solid-js';
import { registerSW } from 'virtual:pwa-register';

/** Registers the service worker; a new deployed version waits until the user chooses to reload. */
export function createAppUpdate() {
  const [updateReady, setUpdateReady] = createSignal(false);
  const [offlineReady, setOfflineReady] = createSignal(false);
  const update = registerSW({
    onNeedRefresh: () => setUpdateReady(true),
    onOfflineReady: () => setOfflineReady(true),
  });
  return { updateReady, offlineReady, applyUpdate: () => update(true), dismiss: () => setUpdateReady(false) };
}
