import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { definitionOf } from '../events/registry.ts';
import { compareIds, followsInBackup, isUuid } from '../ids.ts';
import { validateDraft } from './append.ts';
import { rebuild } from './rebuild.ts';
import { upgradeV1Events, v1EventRow } from './backup-v1.ts';
import { eventRow, type BackupEvent } from './backup-event.ts';
import { defineCommand, defineQuery, none } from '../call.ts';

export const BACKUP_FORMAT = 'roleplay-engine/event-log';
export const BACKUP_VERSION = 2;


const backupSchema = z.discriminatedUnion('version', [
  z.object({ format: z.literal(BACKUP_FORMAT), version: z.literal(2), exportedAt: z.number(), events: z.array(eventRow) }),
  z.object({ format: z.literal(BACKUP_FORMAT), version: z.literal(1), exportedAt: z.number(), events: z.array(v1EventRow) }),
]);
export type Backup = { format: typeof BACKUP_FORMAT; version: typeof BACKUP_VERSION; exportedAt: number; events: BackupEvent[] };

export class BackupError extends Error {
  override name = 'BackupError';
}

/** The message for a backup made by a newer app, in any format. */
export const newerFormatMessage = (version: number, readable: number) =>
  `This backup was made by a newer version of the app (backup format ${version}; this one reads up to ${readable}). Update the app, then restore it.`;

/** The whole log in id order: everything needed to rebuild every table. No settings secrets exist to leak. */
export function exportLog(db: Db, now: () => number): Backup {
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    exportedAt: now(),
    events: db.all<BackupEvent>('SELECT id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY event_key'),
  };
}

export interface ImportContext {
  db: Db;
  /** This database's id: what a v1 backup's events, which predate device ids, are recorded as. */
  deviceId: () => string;
  randomBytes: (length: number) => Uint8Array;
}

/**
 * A JSON backup (format 1 or 2, the app's earlier exports) checked whole: its events as format 3
 * carries them, in id order. Throws a BackupError naming what is wrong.
 */
export function checkJsonBackup(ctx: Omit<ImportContext, 'db'>, input: unknown): { events: BackupEvent[]; exportedAt: number; version: number } {
  const parsed = backupSchema.safeParse(input);
  if (!parsed.success) {
    const isOurs = typeof input === 'object' && input !== null && (input as { format?: unknown }).format === BACKUP_FORMAT;
    const version = isOurs ? (input as { version?: unknown }).version : undefined;
    if (typeof version === 'number' && version > BACKUP_VERSION) throw new BackupError(newerFormatMessage(version, BACKUP_VERSION));
    throw new BackupError(
      isOurs
        ? `This backup is damaged: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
        : 'This file is not a Roleplay Engine backup (expected an event log exported from the app).',
    );
  }
  const backup = parsed.data;
  const events = backup.version === 1 ? upgradeV1Events(backup.events, ctx.deviceId(), ctx.randomBytes, (m) => new BackupError(m)) : backup.events;
  return { events: checkEvents(events), exportedAt: backup.exportedAt, version: backup.version };
}

/**
 * Restores a backup into a database whose log is empty. A v1 backup is first brought to the
 * current shape (ids re-minted in log order, references turned from seqs into ids, markers into
 * marker payloads). Every event is checked against its kind's schema and every reference against
 * the backup before anything is written; a bad backup changes nothing and says which event is wrong.
 */
export function importLog(ctx: ImportContext, input: unknown): { events: number } {
  const checked = checkJsonBackup(ctx, input).events;
  const { db } = ctx;
  db.transaction(() => {
    if (db.get('SELECT 1 AS x FROM event_rows LIMIT 1')) {
      throw new BackupError('This database already has stories in it. Restore into a fresh database.');
    }
    for (const r of inLogOrder(checked)) {
      db.run(
        'INSERT INTO events (id, device_id, ts, kind, chat_id, payload, cause_id, command_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.device_id, r.ts, r.kind, r.chat_id, r.payload, r.cause_id, r.command_id],
      );
    }
    rebuild(db);
  });
  return { events: checked.length };
}

/** The events in the order the log keeps their ids (seq order is id order): a backup's own, unless it was written before 0065 and holds an id not in the log's form. */
function inLogOrder(events: readonly BackupEvent[]): readonly BackupEvent[] {
  const sorted = events.every((e, i) => i === 0 || compareIds(events[i - 1]!.id, e.id) < 0);
  return sorted ? events : [...events].sort((a, b) => compareIds(a.id, b.id));
}

/**
 * One event from elsewhere (a backup, another device) checked as an append checks it: a UUID id,
 * a JSON payload its kind's schema accepts, the right scope. Returns it with the payload as this
 * app stores it; `fail` makes the caller's error from the message.
 */
export function checkedEvent(row: BackupEvent, where: string, fail: (message: string) => Error): BackupEvent {
  if (!isUuid(row.id)) throw fail(`${where} has an id that is not a UUID: ${row.id.slice(0, 40)}`);
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    throw fail(`${where} has a payload that is not JSON.`);
  }
  try {
    return { ...row, payload: JSON.stringify(validateDraft(row.kind, row.chat_id, payload).payload) };
  } catch (error) {
    throw fail(`${where} is invalid: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Order, uniqueness, payloads and references, all before a row is written. */
function checkEvents(events: readonly BackupEvent[]): BackupEvent[] {
  const ids = new Set<string>();
  const commands = new Set<string>();
  let last = '';
  const checked = events.map((row, index) => {
    const where = `Event ${index + 1} (${row.kind})`;
    if (!isUuid(row.id)) throw new BackupError(`${where} has an id that is not a UUID: ${row.id.slice(0, 40)}`);
    if (!followsInBackup(last, row.id)) throw new BackupError(row.id === last || ids.has(row.id) ? `${where} repeats the id ${row.id}.` : `${where} is out of order in the backup.`);
    last = row.id;
    ids.add(row.id);
    if (row.command_id !== null) {
      if (commands.has(row.command_id)) throw new BackupError(`${where} repeats the command id ${row.command_id}.`);
      commands.add(row.command_id);
    }
    return checkedEvent(row, where, (message) => new BackupError(message));
  });
  checked.forEach((row, index) => {
    const where = `Event ${index + 1} (${row.kind})`;
    if (row.cause_id !== null && !ids.has(row.cause_id)) throw new BackupError(`${where} points its cause at ${row.cause_id}, which is not in the backup.`);
    const refs = definitionOf(row.kind)?.refersTo?.(JSON.parse(row.payload) as never) ?? [];
    for (const ref of refs) {
      if (!ids.has(ref)) throw new BackupError(`${where} refers to event ${ref}, which is not in the backup.`);
    }
  });
  return checked;
}

export const backupCalls = {
  /** The whole log as JSON (format 2), for the older export. */
  exportLog: defineQuery({ args: none, run: ({ db, now }) => exportLog(db, now) }),
  /** A JSON backup restored into an empty database. */
  importLog: defineCommand({
    args: z.tuple([z.unknown()]),
    rebuilds: true,
    run(ctx, backup) {
      const imported = importLog(ctx, backup);
      ctx.observeLog();
      return imported;
    },
  }),
};
