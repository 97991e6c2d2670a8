import { createSignal } from 'solid-js';

/**
 * A button's command: `busy` while it runs (to disable the buttons), and its error message, kept
 * until the next attempt. The engine's errors are already written for the user.
 */
export function createAction() {
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const run = async (action: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await action();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(null) };
}
