import { createSignal } from 'solid-js';
import { registerSW } from 'virtual:pwa-register';

/** Registers the service worker; a new deployed version waits until the user chooses to reload. */
export function createAppUpdate() {
  const [updateReady, setUpdateReady] = createSignal(false);
  const [offlineReady, setOfflineReady] = createSignal(false);
  const update = registerSW({
    onNeedRefresh: () => setUpdateReady(true),
    onOfflineReady: () => setOfflineReady(true),
    // Offline, registering (which checks sw.js for an update) fails; the installed worker keeps serving.
    onRegisterError: (error: unknown) => console.debug('service worker not registered now:', error),
  });
  return { updateReady, offlineReady, applyUpdate: () => update(true), dismiss: () => setUpdateReady(false) };
}
