import { z } from 'zod';
import { createIdClock } from '../ids.ts';
import type { BackupEvent } from './backup-event.ts';

/**
 * The first log shape (backups of version 1): local seqs for order and references, markers updated
 * in place. Migration 0006 does the same conversion for a database in SQL; this one is for files.
 */
export const v1EventRow = z.object({
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
type V1Event = z.infer<typeof v1EventRow>;

/**
 * Brings v1 events to the current shape: ids re-minted from a clock driven by the events' own
 * times, so id order is log order (v1 logs mixed in v4 ids made by tabs); causes, rewinds and undos
 * named by id; each regenerating reply names the reply it superseded, so visibility can be derived.
 */
export function upgradeV1Events(
  rows: readonly V1Event[],
  deviceId: string,
  randomBytes: (length: number) => Uint8Array,
  fail: (message: string) => Error,
): BackupEvent[] {
  let last = 0;
  for (const row of rows) {
    if (row.seq <= last) throw fail(`Event ${row.seq} (${row.kind}) is out of order in the backup.`);
    last = row.seq;
  }
  let wall = 0;
  const clock = createIdClock(() => wall, randomBytes);
  const idOf = new Map<number, string>();
  for (const row of rows) {
    wall = row.ts;
    idOf.set(row.seq, clock.next());
  }
  const bySeq = new Map(rows.map((r) => [r.seq, r]));
  const reference = (row: V1Event, name: string, seq: number): string => {
    const id = idOf.get(seq);
    if (id === undefined) throw fail(`Event ${row.seq} (${row.kind}) points its ${name} at event ${seq}, which is not in the backup.`);
    return id;
  };
  for (const row of rows) {
    for (const [name, seq] of [['cause_seq', row.cause_seq], ['superseded_by', row.superseded_by], ['hidden_by', row.hidden_by]] as const) {
      if (seq !== null) reference(row, name, seq);
    }
  }

  // Each regenerate's superseded reply: the first row it superseded whose own cause was not superseded with it.
  const regenerated = new Map<number, number>();
  for (const r of rows) {
    const by = r.superseded_by;
    if (by === null || regenerated.has(by)) continue;
    if (r.cause_seq === null || bySeq.get(r.cause_seq)?.superseded_by !== by) regenerated.set(by, r.seq);
  }

  return rows.map((row) => ({
    id: idOf.get(row.seq)!,
    device_id: deviceId,
    ts: row.ts,
    kind: row.kind,
    chat_id: row.chat_id,
    payload: upgradePayload(row),
    cause_id: row.cause_seq === null ? null : idOf.get(row.cause_seq)!,
    command_id: null,
  }));

  function upgradePayload(row: V1Event): string {
    const payload = parseObject(row.payload);
    if (payload === undefined) return row.payload; // the checks that follow name the bad payload
    if (row.kind === 'chat_rewound' && typeof payload.fromSeq === 'number') {
      const fromSeq = payload.fromSeq;
      const exact = bySeq.get(fromSeq);
      const from = exact?.chat_id === row.chat_id ? exact : rows.find((r) => r.chat_id === row.chat_id && r.seq >= fromSeq);
      return JSON.stringify({ from: from ? idOf.get(from.seq) : idOf.get(row.seq) });
    }
    if (row.kind === 'rewind_undone' && typeof payload.rewindSeq === 'number') {
      return JSON.stringify({ rewind: reference(row, 'rewindSeq', payload.rewindSeq) });
    }
    const root = row.kind === 'assistant_turn_started' ? regenerated.get(row.seq) : undefined;
    if (root !== undefined) return JSON.stringify({ ...payload, regenerateOf: idOf.get(root) });
    return row.payload;
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
