import { createSignal } from 'solid-js';
import { uiLanguage } from './i18n/index.ts';

export interface StorageHealth {
  /** null until known; false when the browser may evict the data under storage pressure. */
  persisted: boolean | null;
  usage: number | null;
  quota: number | null;
}

/** Past this share of the quota the shell warns, while there is still room to export a backup. */
const NEARLY_FULL = 0.8;

/**
 * Watches whether the browser has promised to keep this origin's data and how full its storage
 * is; asks for the promise (`persist()`) when a browser grants it: once there is a story worth
 * keeping, and when the app is installed. Asked on a cold first visit, browsers mostly say no.
 */
export function createStorageHealth() {
  const [health, setHealth] = createSignal<StorageHealth>({ persisted: null, usage: null, quota: null });
  const refresh = async () => {
    const storage = navigator.storage;
    if (!storage) return setHealth({ persisted: false, usage: null, quota: null });
    const persisted = (await storage.persisted?.().catch(() => false)) ?? false;
    const estimate = await storage.estimate?.().catch(() => undefined);
    setHealth({ persisted, usage: estimate?.usage ?? null, quota: estimate?.quota ?? null });
  };
  let asked = false;
  const askToPersist = async () => {
    if (asked || health().persisted) return;
    asked = true;
    await navigator.storage?.persist?.().catch(() => false);
    await refresh();
  };
  addEventListener('appinstalled', () => void askToPersist());
  void refresh();
  setInterval(() => void refresh(), 60_000);
  const nearlyFull = () => {
    const { usage, quota } = health();
    return usage !== null && quota !== null && quota > 0 && usage / quota > NEARLY_FULL;
  };
  return { health, nearlyFull, refresh, askToPersist };
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
  const digits = value < 10 && unit > 0 ? 1 : 0;
  return `${new Intl.NumberFormat(uiLanguage(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}
