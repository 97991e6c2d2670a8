import * as Comlink from 'comlink';
import { createEffect, createSignal } from 'solid-js';
import { relayToken } from './relay-token.ts';
import type { BackupSummary, EngineClient } from '../engine/for-ui.ts';
import type { DatabaseWorker } from '../worker/db.worker.ts';
import type { ChangeNotice } from '../worker/protocol.ts';
import type { StoredBackup } from '../worker/backup-store.ts';
import type { MemoryUse } from '../worker/open-database.ts';
import type { TabStatus, TestHooks, WorkerEvent } from '../worker/tab-coordinator.ts';

/** A backup file's summary before restoring it, and whether it came from this very database. */
export type BackupPreview = BackupSummary & { sameDatabase: boolean };

export type ChangeListener = (notice: ChangeNotice | 'everything') => void;

/** Browser tests reach the worker's test hooks through the URL; a normal visit sets none. */
function testHooksFromUrl(): TestHooks | undefined {
  const params = new URLSearchParams(location.search);
  const delay = Number(params.get('e2e-command-delay'));
  const forceMemory = params.get('e2e-storage') === 'memory';
  const openDelay = Number(params.get('e2e-open-delay'));
  const pageBytes = Number(params.get('e2e-page-bytes'));
  if (!delay && !forceMemory && !openDelay && !pageBytes) return undefined;
  return {
    ...(delay ? { commandDelayMs: delay, phase: params.get('e2e-phase') === 'after-commit' ? ('after-commit' as const) : ('before-commit' as const) } : {}),
    ...(forceMemory ? { forceMemory } : {}),
    ...(openDelay ? { openDelayMs: openDelay } : {}),
    ...(pageBytes ? { pageBytes } : {}),
  };
}

/**
 * This tab's connection to the database: starts the tab's worker, exposes every engine call as an
 * async function, and turns change notices into "refetch" signals. A gap in the seqs or a new epoch
 * (another tab took over, or the database was replaced) means "refetch everything".
 */
export function createEngineClient() {
  // The page's head may have started it already (build/early-database-worker.ts): take that one.
  const early = (globalThis as { rpeDatabaseWorker?: Worker }).rpeDatabaseWorker;
  delete (globalThis as { rpeDatabaseWorker?: Worker }).rpeDatabaseWorker;
  const worker = early ?? new Worker(new URL('../worker/db.worker.ts', import.meta.url), { type: 'module', name: 'roleplay-engine-db' });
  const remote = Comlink.wrap<DatabaseWorker>(worker);
  // The worker cannot read localStorage: it is told the relay token, now and whenever it changes.
  createEffect(() => void remote.setRelayToken(relayToken()));
  const [status, setStatus] = createSignal<TabStatus>({ role: 'starting', storage: null, database: null, epoch: null });
  const listeners = new Set<ChangeListener>();
  const publishListeners = new Set<(topic: string, seq: number, data: unknown) => void>();
  let lastSeq: number | null = null;
  let lastEpoch: string | null = null;

  const onEvent = (event: WorkerEvent) => {
    if (event.type === 'status') {
      if (event.status.epoch !== lastEpoch && lastEpoch !== null) {
        lastSeq = null;
        for (const listener of listeners) listener('everything');
      }
      lastEpoch = event.status.epoch;
      setStatus(event.status);
    } else if (event.type === 'changed') {
      const { notice } = event;
      const gap = lastSeq !== null && notice.fromSeq !== lastSeq;
      lastSeq = notice.toSeq;
      for (const listener of listeners) listener(gap ? 'everything' : notice);
    } else {
      for (const listener of publishListeners) listener(event.topic, event.seq, event.data);
    }
  };

  // The worker's news comes on a port of its own, one message each: a Comlink callback would also
  // send an answer back for every notice, and every tab's notices wait behind those.
  const events = new MessageChannel();
  events.port1.onmessage = (message: MessageEvent<WorkerEvent>) => onEvent(message.data);
  const ready = remote.start(crypto.randomUUID(), Comlink.transfer(events.port2, [events.port2]), testHooksFromUrl());

  const call = (method: string) => async (...args: unknown[]) => {
    await ready;
    return remote.call(method, args);
  };
  // Any query or command of the engine's call table, by name: the leader checks the name and the
  // arguments, and the tab's worker adds command ids. The table itself stays out of the page's code.
  const calls = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  const engine = new Proxy({} as EngineClient, {
    get: (_, method) => {
      if (typeof method !== 'string' || method === 'then') return undefined;
      let bound = calls.get(method);
      if (!bound) calls.set(method, (bound = call(method)));
      return bound;
    },
  });

  // The next tab in line takes the database over as soon as this worker is gone; do not make it
  // wait for the browser to tear the page down. Durability never depends on this.
  addEventListener('pagehide', () => worker.terminate());
  // A page restored from the back/forward cache has lost its worker: start over.
  addEventListener('pageshow', (event: PageTransitionEvent) => {
    if (event.persisted) location.reload();
  });

  return {
    engine,
    status,
    ready,
    admin: {
      startFresh: () => call('startFresh')(),
      /** Replaces everything with a backup file's log, after backing up what is here. */
      restoreBackup: (file: Blob | { stored: string }) => call('restoreBackup')(file),
      /** The log as a backup file (gzip, format 3). */
      backupFile: () => call('backupFile')() as Promise<Blob>,
      /** What a backup file holds, checked through; nothing is written. */
      checkBackup: (file: Blob | { stored: string }) => call('checkBackup')(file) as Promise<BackupPreview>,
      /** A consistent copy of the SQLite file. */
      databaseFile: () => call('databaseFile')() as Promise<Blob>,
      /** The backups kept in this browser, newest first. */
      listBackups: () => call('listBackups')() as Promise<StoredBackup[]>,
      storedBackup: (name: string) => call('storedBackup')(name) as Promise<File>,
      /** SQLite's memory in the leader's worker (for the benches and the curious). */
      memoryUse: () => call('memoryUse')() as Promise<MemoryUse>,
    },
    onChange(listener: ChangeListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onPublish(listener: (topic: string, seq: number, data: unknown) => void) {
      publishListeners.add(listener);
      return () => publishListeners.delete(listener);
    },
  };
}

export type AppClient = ReturnType<typeof createEngineClient>;
