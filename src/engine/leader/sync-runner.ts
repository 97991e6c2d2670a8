import { z } from 'zod';
import { defineCommand, defineQuery, none, type CallEnv } from '../call.ts';
import { setPendingPassphrase, setSyncPassphrase, setSyncPaused } from '../sync/sync-log.ts';
import { SyncError, type SyncProblem } from '../sync/sync-error.ts';
import type { Replicator } from '../sync/replicator.ts';

export type SyncState = 'starting' | 'unavailable' | 'paused' | 'syncing' | 'up-to-date' | 'offline' | 'error';

/** What the Sync screen shows; published to every tab as it changes. */
export interface SyncStatus {
  state: SyncState;
  /** Why it is offline or failing, in words: the technical detail, shown under the plain sentence. */
  detail: string | null;
  /** What stopped it, for the plain sentence and its remedy (`sync/sync-error.ts`). */
  problem: SyncProblem | null;
  /** Events received and sent since this leader started, and how many a pull has brought so far. */
  pulled: number;
  pushed: number;
  pulling: number | null;
  /** Of how many, when known. */
  pullTotal: number | null;
  /** Events a push has offered the server so far, of how many, while a backlog goes up. */
  pushing: number | null;
  pushTotal: number | null;
  /** Events written anew, sealed with a new passphrase, of how many, while "Encrypt" or "Change passphrase" runs. */
  resealing: number | null;
  resealTotal: number | null;
  /** Events the server holds in another version: kept apart, never overwritten. */
  refused: number;
  /** This device seals what it sends with a passphrase. */
  encrypted: boolean;
  /**
   * This device has had the whole story from the server at least once. Until then it is joining:
   * what it authors (a persona) could replace what the other devices hold.
   */
  caughtUp: boolean;
  /** Events written here that the server does not have yet (paused, offline, or on their way). */
  unsynced: number;
  lastSyncedAt: number | null;
}

export interface SyncRunnerDeps {
  replicator: Replicator;
  now: () => number;
  /** Whether the player paused sync on this device. */
  paused: () => boolean;
  /** Whether this device has a passphrase. */
  encrypted: () => boolean;
  /** Whether this device has ever pulled the whole story. */
  caughtUp: () => boolean;
  /** Events written here after the push checkpoint. */
  unsynced: () => number;
  /** The passphrase the server's story is to be sealed with anew, until that is committed. */
  pendingPassphrase?: () => string | null;
  /** That rewrite was committed: its passphrase is this device's now. */
  resealed?: () => void;
  publish: (status: SyncStatus) => void;
  /** How long one long-poll waits for the server's next change. */
  longPollMs?: number;
  /** Longest wait between attempts while the server cannot be reached. */
  maxBackoffMs?: number;
  /** The first wait after a failure, doubling from there. */
  firstBackoffMs?: number;
}

const LONG_POLL_MS = 25_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Keeps this device and the server in step while the leader lives: push what was written here,
 * pull what arrived there, then wait on a long-poll for the server's next change; a local write
 * cuts the wait short (`poke`). Offline, it waits and tries again, from its checkpoints.
 */
export function createSyncRunner(deps: SyncRunnerDeps) {
  let status: SyncStatus = { state: 'starting', detail: null, problem: null, pulled: 0, pushed: 0, pulling: null, pullTotal: null, pushing: null, pushTotal: null, resealing: null, resealTotal: null, refused: 0, lastSyncedAt: null, encrypted: deps.encrypted(), caughtUp: deps.caughtUp(), unsynced: deps.unsynced() };
  let stopped = false;
  let running = false;
  let wake: AbortController = new AbortController();
  let prepared = false;
  const firstBackoff = deps.firstBackoffMs ?? 1_000;
  let backoff = firstBackoff;

  const set = (change: Partial<SyncStatus>) => {
    status = { ...status, ...change, unsynced: deps.unsynced() };
    deps.publish(status);
  };

  const pause = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  async function loop(): Promise<void> {
    while (!stopped) {
      if (deps.paused()) {
        set({ state: 'paused', detail: null, problem: null, pulling: null, pullTotal: null });
        await pause(60_000, wake.signal);
        wake = new AbortController();
        continue;
      }
      try {
        const pending = deps.pendingPassphrase?.() ?? null;
        if (pending !== null) {
          set({ state: 'syncing', detail: null, problem: null });
          await deps.replicator.reseal(pending);
          deps.resealed?.();
          set({ resealing: null, resealTotal: null, encrypted: true });
          prepared = false;
          continue;
        }
        if (!prepared) {
          if (status.encrypted !== deps.encrypted()) set({ encrypted: deps.encrypted() });
          await deps.replicator.prepare();
          prepared = true;
        }
        if (status.state !== 'up-to-date') set({ state: 'syncing', detail: null, problem: null });
        const sent = await deps.replicator.push();
        if (status.pushing !== null) set({ pushing: null, pushTotal: null });
        const pulled = await deps.replicator.pull();
        await deps.replicator.removeFromServer();
        set({
          state: 'up-to-date',
          detail: null,
          problem: null,
          pushed: status.pushed + sent.sent,
          pulled: status.pulled + pulled,
          pulling: null,
          pullTotal: null,
          refused: status.refused + sent.refused.length,
          lastSyncedAt: deps.now(),
          caughtUp: true,
        });
        backoff = firstBackoff;
        if (stopped) return;
        const got = await deps.replicator.pull({ ms: deps.longPollMs ?? LONG_POLL_MS, signal: wake.signal });
        if (got > 0) set({ pulled: status.pulled + got, pulling: null, pullTotal: null, lastSyncedAt: deps.now() });
        // A long-poll that brought back only what this device had (its own events) is no pull to show.
        else if (status.pulling !== null) set({ pulling: null, pullTotal: null });
      } catch (error) {
        if (stopped) return;
        if (wake.signal.aborted) {
          // A local write cut the wait short: go round at once, pushing it.
          wake = new AbortController();
          continue;
        }
        // Another device wrote the story anew: start again from the new generation, at once.
        if (error instanceof SyncError && error.problem === 'generation-changed') {
          prepared = false;
          continue;
        }
        if (error instanceof SyncError && error.status === 404 && !prepared) {
          set({ state: 'unavailable', detail: error.message, problem: null, pulling: null, pullTotal: null });
          return;
        }
        const offline = !(error instanceof SyncError) || error.offline || (error.status !== undefined && error.status >= 502);
        // Settled on this device (a wrong passphrase, say): worked out again on the next round.
        if (error instanceof SyncError && !error.offline) prepared = false;
        const problem: SyncProblem = error instanceof SyncError ? error.problem : 'offline';
        set({ state: offline ? 'offline' : 'error', detail: error instanceof Error ? error.message : String(error), problem, pulling: null, pullTotal: null, pushing: null, pushTotal: null, resealing: null, resealTotal: null });
        await pause(backoff, wake.signal);
        wake = new AbortController();
        backoff = Math.min(backoff * 2, deps.maxBackoffMs ?? MAX_BACKOFF_MS);
      }
    }
  }

  return {
    start(): void {
      if (running || stopped) return;
      running = true;
      void loop().finally(() => (running = false));
    },
    /** Something was written here, or the player asked: sync now instead of at the next change. */
    poke(): void {
      // Paused or cut off, nothing else would say that one more event waits to be sent.
      if (status.state === 'paused' || status.state === 'offline' || status.state === 'error') {
        const unsynced = deps.unsynced();
        if (unsynced !== status.unsynced) set({});
      }
      wake.abort();
    },
    /**
     * Something that stopped sync may have changed (the network came back, the relay token was
     * set): try at once, and start the backoff afresh, rather than wait out up to 30 s of it.
     */
    retryNow(): void {
      backoff = firstBackoff;
      if (status.state === 'offline' || status.state === 'error') prepared = false;
      wake.abort();
    },
    /** The passphrase changed: work out the database's encryption again, then sync. */
    reconnect(): void {
      prepared = false;
      wake.abort();
    },
    /** A push's progress, from the replicator. */
    pushingProgress(count: number, total: number): void {
      set({ pushing: count, pushTotal: total });
    },
    /** Sealing the story anew: how far, from the replicator. */
    resealingProgress(count: number, total: number): void {
      set({ resealing: count, resealTotal: total });
    },
    /** A pull's progress, from the replicator. */
    pulling(count: number, total: number | null): void {
      set({ pulling: count, pullTotal: total });
    },
    status: (): SyncStatus => status,
    stop(): void {
      stopped = true;
      wake.abort();
    },
  };
}

export type SyncRunner = ReturnType<typeof createSyncRunner>;

/** What the sync calls run with: the leader's sync runner, when this device syncs. */
export type SyncEnv = CallEnv & { sync: SyncRunner | null };

export const syncCalls = {
  /** Where this device stands with the sync server (also published on the `sync` topic as it changes). */
  syncStatus: defineQuery({ args: none, run: ({ sync }: SyncEnv): SyncStatus | null => sync?.status() ?? null }),
  /** "Sync now": cuts the wait for the server's next change short. */
  syncNow: defineQuery({
    args: none,
    run({ sync }: SyncEnv): null {
      sync?.poke();
      return null;
    },
  }),
  /** "Pause sync on this device", and its undo: a local choice, not an event. */
  setSyncPaused: defineCommand({
    args: z.tuple([z.boolean()]),
    run({ db, sync }: SyncEnv, paused: boolean): boolean {
      setSyncPaused(db, paused);
      sync?.poke();
      return paused;
    },
  }),
  /**
   * "Encrypt with a passphrase" on a story that already synced in the clear, and "Change
   * passphrase": the server's story is written anew, sealed with this one (kept as pending until
   * the server has committed it, so a device killed midway resumes).
   */
  resealSync: defineCommand({
    args: z.tuple([z.string().min(8).max(500)]),
    run({ db, sync }: SyncEnv, passphrase: string): boolean {
      setPendingPassphrase(db, passphrase);
      sync?.reconnect();
      return true;
    },
  }),
  /** The passphrase this device encrypts synced stories with (null: none); kept on this device only. */
  setSyncPassphrase: defineCommand({
    args: z.tuple([z.string().min(8).max(500).nullable()]),
    run({ db, sync }: SyncEnv, passphrase: string | null): boolean {
      setSyncPassphrase(db, passphrase);
      sync?.reconnect();
      return passphrase !== null;
    },
  }),
};
