import { createSignal } from 'solid-js';

export interface StorageHealth {
  /** null until known; false when the browser may evict the data under storage pressure. */
  persisted: boolean | null;
  usage: number | null;
  quota: number | null;
}

const NEARLY_FULL = 0.9;

/** Asks the browser to keep this origin's data, and watches how full its storage is. */
export function createStorageHealth() {
  const [health, setHealth] = createSignal<StorageHealth>({ persisted: null, usage: null, quota: null });
  const refresh = async () => {
    const storage = navigator.storage;
    if (!storage) return setHealth({ persisted: false, usage: null, quota: null });
    const persisted = (await storage.persisted?.().catch(() => false)) || (await storage.persist?.().catch(() => false)) || false;
    const estimate = await storage.estimate?.().catch(() => undefined);
    setHealth({ persisted, usage: estimate?.usage ?? null, quota: estimate?.quota ?? null });
  };
  void refresh();
  const nearlyFull = () => {
    const { usage, quota } = health();
    return usage !== null && quota !== null && quota > 0 && usage / quota > NEARLY_FULL;
  };
  return { health, nearlyFull, refresh };
}

export function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'unknown';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 && unit > 0 ? 1 : 0)} ${units[unit]}`;
}
