import * as Comlink from 'comlink';
import type { CardRead, CardReader } from '../worker/card-reader.worker.ts';

/** How long a card may take to read: the largest real cards take well under a second. */
export const CARD_READ_LIMIT_MS = 30_000;

/**
 * Reads a card file in a worker of its own, ended when it answers. A file that takes longer than
 * the limit, or kills the worker (out of memory), is refused with that reason, and the page stays
 * responsive throughout.
 */
export async function readCardFile(file: File, limitMs = CARD_READ_LIMIT_MS): Promise<CardRead> {
  const worker = new Worker(new URL('../worker/card-reader.worker.ts', import.meta.url), { type: 'module', name: 'card-reader' });
  const reader = Comlink.wrap<CardReader>(worker);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Reading ${file.name} took longer than ${limitMs / 1000} seconds, so it was stopped: it is not a card this app can read.`)), limitMs);
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      reject(new Error(`Reading ${file.name} stopped the card reader (${event.message || 'it ran out of memory'}): it is not a card this app can read.`));
    });
  });
  try {
    return await Promise.race([reader.read(file), stopped]);
  } finally {
    clearTimeout(timer);
    reader[Comlink.releaseProxy]();
    worker.terminate();
  }
}
