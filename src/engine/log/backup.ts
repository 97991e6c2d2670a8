import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { validateDraft } from './append.ts';
import { rebuild } from './rebuild.ts';
import { EVENT_COLUMNS, type EventRow } from './row.ts';

export const BACKUP_FORMAT = 'roleplay-engine/event-log';
export const BACKUP_VERSION = 1;

const eventRow = z.object({
  seq: z.number().int().min(1),
  id: z.string().min(1).max(100),
  ts: z.number().int().min(0),
  kind: z.string().min(1).max(60),
  chat_id: z.string().max(100).nullable(),
  payload: z.string(),
  cause_seq: z.number().int().nullable(),
  superseded_by: z.number().int().nullable(),
  hidden_by: z.number().int().nullable(),
});

const backupSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  exportedAt: z.number(),
  events: z.array(eventRow),
});
export type Backup = z.infer<typeof backupSchema>;

export class BackupError extends Error {
  override name = 'BackupError';
}

/** The whole log, markers included: everything needed to rebuild every table. No settings secrets exist to leak. */
export function exportLog(db: Db, now: () => number): Backup {
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    exportedAt: now(),
    events: db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events ORDER BY seq`),
  };
}

/**
 * Restores a backup into a database whose log is empty. Every event is checked against its kind's
 * schema and every reference against the log before anything is written; a bad backup changes
 * nothing and says which event is wrong.
 */
export function importLog(db: Db, input: unknown): { events: number } {
  const parsed = backupSchema.safeParse(input);
  if (!parsed.success) {
    const isOurs = typeof input === 'object' && input !== null && (input as { format?: unknown }).format === BACKUP_FORMAT;
    throw new BackupError(
      isOurs
        ? `This backup is damaged: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
        : 'This file is not a Roleplay Engine backup (expected an event log exported from the app).',
    );
  }
  const { events } = parsed.data;
  const seqs = new Set<number>();
  const ids = new Set<string>();
  let last = 0;
  const checked = events.map((row) => {
    const where = `Event ${row.seq} (${row.kind})`;
    if (row.seq <= last) throw new BackupError(`${where} is out of order in the backup.`);
    last = row.seq;
    if (ids.has(row.id)) throw new BackupError(`${where} repeats the id ${row.id}.`);
    ids.add(row.id);
    seqs.add(row.seq);
    let payload: unknown;
    try {
      payload = JSON.parse(row.payload);
    } catch {
      throw new BackupError(`${where} has a payload that is not JSON.`);
    }
    try {
      return { ...row, payload: JSON.stringify(validateDraft(row.kind, row.chat_id, payload).payload) };
    } catch (error) {
      throw new BackupError(`${where} is invalid: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  for (const row of checked) {
    for (const [name, ref] of [['cause_seq', row.cause_seq], ['superseded_by', row.superseded_by], ['hidden_by', row.hidden_by]] as const) {
      if (ref !== null && !seqs.has(ref)) throw new BackupError(`Event ${row.seq} (${row.kind}) points its ${name} at event ${ref}, which is not in the backup.`);
    }
  }
  db.transaction(() => {
    if (db.get('SELECT 1 AS x FROM events LIMIT 1')) {
      throw new BackupError('This database already has stories in it. Restore into a fresh database.');
    }
    for (const r of checked) {
      db.run(
        `INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.seq, r.id, r.ts, r.kind, r.chat_id, r.payload, r.cause_seq, r.superseded_by, r.hidden_by],
      );
    }
    rebuild(db);
  });
  return { events: checked.length };
}
