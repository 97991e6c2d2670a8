import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { definitionOf } from '../events/registry.ts';
import { followsInBackup, isUuid } from '../ids.ts';
import { validateDraft } from './append.ts';
import { BACKUP_FORMAT, BackupError, newerFormatMessage } from './backup.ts';
import type { BackupEvent } from './backup-event.ts';

/**
 * The backup file (format 3): one JSON value per line, gzip-compressed at the edge. A header line,
 * then one event per line in id order, then a trailer with the number of events and the SHA-256 of
 * the event lines (each with its newline). Written and read a line at a time, so a log of any size
 * is never one string; a file cut short has no trailer and is refused, whatever it looked like.
 */
export const LINES_VERSION = 3;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof LINES_VERSION;
  exportedAt: number;
  /** The database it was exported from (`database_identity`), so a restore can say whether it is this one. */
  database: string;
}

export interface BackupSummary {
  version: number;
  exportedAt: number;
  database: string | null;
  events: number;
  bots: number;
  chats: number;
  turns: number;
}

const PAGE = 2_000;
const EVENT_COLUMNS = 'id, device_id, ts, kind, chat_id, payload, cause_id, command_id';

/**
 * The lines of a backup of the log as it stands now: events written while it is being read (the
 * leader keeps playing between pages) are left for the next backup, so the file is one consistent
 * moment of the log.
 */
export function* backupLines(db: Db, header: Omit<BackupHeader, 'format' | 'version'>): Generator<string> {
  const head = db.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM event_rows')?.seq ?? 0;
  yield JSON.stringify({ format: BACKUP_FORMAT, version: LINES_VERSION, ...header } satisfies BackupHeader);
  const hash = sha256.create();
  const encoder = new TextEncoder();
  let count = 0;
  for (let after = ''; ; ) {
    const page = db.all<BackupEvent>(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq <= ? AND event_key > id_key(?) ORDER BY event_key LIMIT ${PAGE}`, [head, after]);
    for (const row of page) {
      const line = JSON.stringify(row);
      hash.update(encoder.encode(`${line}\n`));
      count++;
      yield line;
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  yield JSON.stringify({ end: true, events: count, sha256: bytesToHex(hash.digest()) });
}

const header = z.object({ format: z.literal(BACKUP_FORMAT), version: z.number().int(), exportedAt: z.number(), database: z.string().min(1).max(100) });
const trailer = z.object({ end: z.literal(true), events: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
const eventRow = z
  .object({
    id: z.string().min(1).max(100),
    device_id: z.string().min(1).max(100),
    ts: z.number().int().min(0),
    kind: z.string().min(1).max(60),
    chat_id: z.string().max(100).nullable(),
    payload: z.string().max(4_000_000),
    cause_id: z.string().max(100).nullable(),
    command_id: z.string().max(200).nullable(),
  })
  .strict();

/** Whether a parsed JSON value has a `__proto__` key anywhere: harmless in JSON, an attack in a merge. */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || hasProtoKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

const TURN_KINDS = new Set(['user_turn', 'assistant_turn']);

/** What a backup's preview counts, from its checked events: bots authored, chats started, turns written. */
export function createStoryCount() {
  const bots = new Set<string>();
  const chats = new Set<string>();
  let turns = 0;
  return {
    add(kind: string, chatId: string | null, payload: unknown): void {
      if (kind === 'bot_authored') bots.add((payload as { botId: string }).botId);
      if (kind === 'chat_created' && chatId) chats.add(chatId);
      if (TURN_KINDS.has(kind)) turns++;
    },
    counts: () => ({ bots: bots.size, chats: chats.size, turns }),
  };
}

/**
 * Checks a format-3 backup a line at a time: the header, every event (its shape, its kind's schema,
 * id order, no repeated ids or command ids, causes and references to events before it, every
 * chat's events after the event that starts it, no
 * `__proto__`), the trailer's count and checksum, and nothing after it. A problem throws a
 * BackupError naming the line. `each` receives every checked event (the restore writes them).
 */
export function createLinesReader(each?: (event: BackupEvent) => void) {
  const hash = sha256.create();
  const encoder = new TextEncoder();
  const ids = new Set<string>();
  const commands = new Set<string>();
  /** Chats started so far: an event of any other chat would be a story with no beginning. */
  const chats = new Set<string>();
  const story = createStoryCount();
  let summary: BackupSummary | undefined;
  let ended = false;
  let last = '';
  let number = 0;

  const fail = (message: string): never => {
    throw new BackupError(`Line ${number} of the backup ${message}`);
  };
  const parse = (text: string, what: string): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return fail(`is not ${what}: the file is damaged.`);
    }
  };

  return {
    line(text: string): void {
      number++;
      if (ended) fail('comes after the end of the backup: the file is damaged.');
      const value = parse(text, 'JSON');
      if (hasProtoKey(value)) fail('has a "__proto__" key, which no backup of this app contains.');
      if (!summary) {
        const h = header.safeParse(value);
        if (!h.success) throw new BackupError('This file is not a Roleplay Engine backup (its first line is not a backup header).');
        if (h.data.version > LINES_VERSION) throw new BackupError(newerFormatMessage(h.data.version, LINES_VERSION));
        if (h.data.version !== LINES_VERSION) fail(`says it is backup format ${h.data.version}, which is not a line-by-line format.`);
        summary = { version: h.data.version, exportedAt: h.data.exportedAt, database: h.data.database, events: 0, bots: 0, chats: 0, turns: 0 };
        return;
      }
      if (typeof value === 'object' && value !== null && 'end' in value) {
        const t = trailer.safeParse(value);
        if (!t.success) fail('is a damaged end-of-backup line.');
        if (t.data!.events !== summary.events) fail(`says the backup holds ${t.data!.events} events, but ${summary.events} came before it: the file is damaged.`);
        if (t.data!.sha256 !== bytesToHex(hash.digest())) fail('has a checksum that does not match the events: the file is damaged.');
        ended = true;
        return;
      }
      const row = eventRow.safeParse(value);
      if (!row.success) fail(`is not an event: ${row.error!.issues.slice(0, 2).map((i) => `${i.path.join('.') || 'line'}: ${i.message}`).join('; ')}.`);
      const event = row.data!;
      const where = `(event ${summary.events + 1}, ${event.kind})`;
      if (!isUuid(event.id)) fail(`${where} has an id that is not a UUID.`);
      if (ids.has(event.id)) fail(`${where} repeats the id ${event.id}.`);
      if (!followsInBackup(last, event.id)) fail(`${where} is out of order.`);
      if (event.command_id !== null) {
        if (commands.has(event.command_id)) fail(`${where} repeats the command id ${event.command_id}.`);
        commands.add(event.command_id);
      }
      const payload = parse(event.payload, 'an event with a JSON payload');
      if (hasProtoKey(payload)) fail(`${where} has a "__proto__" key in its payload, which no backup of this app contains.`);
      let checked: unknown;
      try {
        checked = validateDraft(event.kind, event.chat_id, payload).payload;
      } catch (error) {
        fail(`${where} is invalid: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (event.cause_id !== null && !ids.has(event.cause_id)) fail(`${where} points its cause at ${event.cause_id}, which is not before it in the backup.`);
      if (event.kind === 'chat_created' && event.chat_id !== null) chats.add(event.chat_id);
      else if (event.chat_id !== null && !chats.has(event.chat_id)) fail(`${where} belongs to chat ${event.chat_id}, which no event before it starts.`);
      for (const ref of definitionOf(event.kind)?.refersTo?.(checked as never) ?? []) {
        if (!ids.has(ref)) fail(`${where} refers to event ${ref}, which is not before it in the backup.`);
      }
      hash.update(encoder.encode(`${text}\n`));
      ids.add(event.id);
      last = event.id;
      summary.events++;
      story.add(event.kind, event.chat_id, checked);
      each?.({ ...event, payload: JSON.stringify(checked) });
    },
    /** The summary of a whole, verified backup; throws when the file ended early. */
    end(): BackupSummary {
      if (!summary) throw new BackupError('This file is empty: it is not a backup.');
      if (!ended) throw new BackupError(`The backup ends after line ${number} without its end-of-backup line: the file was cut short.`);
      return { ...summary, ...story.counts() };
    },
  };
}
