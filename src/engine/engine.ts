import type { Db } from './db/port.ts';
import type { LlmClient } from './llm/port.ts';
import { migrate, type Migration } from './db/migrate.ts';
import { createIdClock } from './ids.ts';
import type { LogContext } from './log/context.ts';
import { rebuild } from './log/rebuild.ts';
import { putLogInIdOrder } from './log/id-order.ts';
import { ensureJournal, JOURNAL_KEPT_EVENTS, pruneJournal } from './log/journal.ts';
import { checkJsonBackup } from './log/backup.ts';
import type { BackupEvent } from './log/backup-event.ts';
import { backupLines, createLinesReader } from './log/backup-lines.ts';
import { restoreStaging } from './log/replace-log.ts';
import { headSeq } from './log/head.ts';
import { identify } from './db/identity.ts';
import { indexPendingSearch } from './queries/search-index.ts';
import type { TokenCounter } from './turn/tokens.ts';
import { pendingJobs, runJob, type AnalysisJob } from './analysis/jobs.ts';
import { classifyLogged } from './llm/classifier.ts';
import { readSettings } from './settings/settings.ts';
import { mergeEvents, type MergeResult, type SyncedEvent } from './log/merge.ts';
import { syncLog } from './sync/sync-log.ts';
import type { CallEnv } from './call.ts';

/** What the edges hand the engine: storage, time and randomness. Nothing else reaches in. */
export interface EngineDeps {
  db: Db;
  now: () => number;
  randomBytes: (length: number) => Uint8Array;
  /** How many of each chat's latest events the projection journal keeps; tests make it small to reach past it. */
  journalKeep?: number;
}

export type Engine = ReturnType<typeof createEngine>;

/** Applies pending migrations, then returns the engine over the migrated database. */
export async function openEngine(deps: EngineDeps, migrations: readonly Migration[]): Promise<Engine> {
  await migrate(deps.db, migrations, deps.now);
  return createEngine(deps);
}

/**
 * The engine over one database: its log context (the id clock, this device's id, the journal kept
 * short), and what the leader and the worker do with the log as a whole (analysis, search
 * indexing, backups, restore, sync merges). What a tab can ask for is not here: each call runs
 * straight from its declaration (`api.ts`) with `callEnv`.
 */
export function createEngine(deps: EngineDeps) {
  const { db } = deps;
  const clock = createIdClock(deps.now, deps.randomBytes);
  const observeLog = () => {
    const newest = db.get<{ id: string | null }>('SELECT id_text(max(id)) AS id FROM event_rows')?.id;
    if (newest) clock.observe(newest);
  };
  observeLog();
  ensureJournal(db);
  // Once, for a log synced before seq order was kept to id order (noted by migration 0059).
  putLogInIdOrder(db);
  // A database from before the journal (or restored without one): fill it once, so steering is quick from now on.
  if (!db.get('SELECT 1 AS x FROM projection_journal LIMIT 1') && db.get('SELECT 1 AS x FROM chats LIMIT 1')) rebuild(db);
  // ...and keep it to each chat's latest events, so it does not grow with a year of play.
  pruneJournal(db, deps.journalKeep ?? JOURNAL_KEPT_EVENTS);
  let deviceId: string | undefined;
  const ctx: LogContext = {
    db,
    now: deps.now,
    newId: () => clock.next(),
    reserveIds: (count) => {
      const random = deps.randomBytes(4);
      return { block: clock.reserve(count), tail: new DataView(random.buffer, random.byteOffset, 4).getUint32(0) };
    },
    deviceId: () => (deviceId ??= identify(db, ctx.newId, deps.now).dbId),
    journalKeep: deps.journalKeep ?? JOURNAL_KEPT_EVENTS,
  };

  const mergeHere = (events: readonly SyncedEvent[]): MergeResult => {
    const merged = mergeEvents(db, events);
    if (merged.added > 0) observeLog();
    return merged;
  };

  return {
    ctx,
    newId: ctx.newId,
    headSeq: () => headSeq(db),
    identify: () => identify(db, ctx.newId, deps.now),

    /** What a call runs with: this log, the command id its tab made, and what the leader lends it. */
    callEnv(commandId: string | undefined, llm: LlmClient, publish: (topic: string, data: unknown) => void): CallEnv {
      return { ...ctx, commandId, llm, publish, randomBytes: deps.randomBytes, observeLog };
    },

    /**
     * The background work after replies (analysis, scene summaries): what is pending, and running
     * one job with the given relay client. The leader's queue decides when.
     */
    analysis: {
      pending: (chatId?: string) => pendingJobs(db, ctx.deviceId(), chatId),
      run: (llm: LlmClient, job: AnalysisJob, count: TokenCounter, signal?: AbortSignal) =>
        runJob(
          { ctx, settings: () => readSettings(db), classify: (schema, prompt, options) => classifyLogged(ctx, llm, schema, prompt, options) },
          job,
          count,
          signal,
        ),
    },

    /** One pass of the search indexes over rows written since the last: how many still wait. */
    indexSearch: () => indexPendingSearch(db),

    /** Which chats and kinds the events after `seq` touched: what a change notice reports. */
    changesSince: (seq: number) =>
      db
        .all<{ kind: string; chat_id: string | null }>('SELECT DISTINCT kind, chat_id FROM events WHERE seq > ?', [seq])
        .map((r) => ({ kind: r.kind, chatId: r.chat_id })),

    /** The backup file's lines (format 3) for the log as it stands now; the edge compresses them. */
    backupLines: () => backupLines(db, { exportedAt: deps.now(), database: identify(db, ctx.newId, deps.now).dbId }),
    /** Checks a backup's lines as they come; `each` gets every checked event. */
    backupReader: (each?: (event: BackupEvent) => void) => createLinesReader(each),
    /** An earlier JSON backup (format 1 or 2), checked whole. */
    checkJsonBackup: (input: unknown) => checkJsonBackup({ deviceId: ctx.deviceId, randomBytes: deps.randomBytes }, input),
    /** Replacing the log with a checked backup's events: staged in batches, swapped in at once. */
    restore: (() => {
      const staging = restoreStaging(db);
      return {
        begin: staging.begin,
        add: staging.add,
        abandon: staging.abandon,
        commit(expected: number) {
          const done = staging.commit(expected);
          observeLog();
          return done;
        },
      };
    })(),
    /**
     * Events written on other devices, merged into this log (sync): new ones inserted and projected,
     * known ones skipped; the clock moves past them, so what this device writes next sorts after.
     */
    mergeEvents: mergeHere,
    /** Where this log stands with a sync server, and its side of push and pull (`sync/sync-log.ts`). */
    sync: syncLog(db, mergeHere),
  };
}
