import { z } from 'zod';
import { defineQuery, id } from '../call.ts';
import type { Db } from '../db/port.ts';
import { changeKey } from '../events/define.ts';
import { editKey, type EditTarget } from '../events/edit-marks.ts';
import { definitionOf } from '../events/registry.ts';
import { chatKeyOf } from '../events/tables.ts';

/** Who made a change: the story (a reply's analysis), the player (the drawer, Skip ahead), or the opening scene. */
export type ChangedBy = 'story' | 'player' | 'opening';

/** One change to a drawer value, as "Why?" lists it. */
export interface ValueChangeEntry {
  /** The event that made it, and the change's name within it: what "Undo this change" sends. */
  eventId: string;
  change: string;
  field: string;
  /** For one item of a list (a fact): which. */
  part: string;
  how: 'delta' | 'set' | 'add' | 'create' | 'refused';
  value: unknown;
  by: ChangedBy;
  /** The story's line it came from (a reply), or the last line before the player made it: `?turn=<seq>` opens the story there. */
  turnSeq: number | null;
  /** That line's number in the story (from 1), for the link's words. */
  turnNumber: number | null;
  /** When it was made, on the computer's clock. */
  ts: number;
  /** Taken back by "Undo this change". */
  undone: boolean;
  /** A change the player can take back: one still in force. */
  undoable: boolean;
}

const targetArg = z.custom<EditTarget>((v) => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string');

/**
 * Every change to one value (a field of a target), or to every field of it, newest first: where it
 * came from (the turn, the story or the player) and whether it was taken back. At most 100.
 */
export function valueHistory(db: Db, chatId: string, target: EditTarget, field?: string): ValueChangeEntry[] {
  const rows = db.all<{
    id: string;
    kind: string;
    cause: number;
    cause_turn: string | null;
    ts: number;
    seq: number;
    target: string;
    field: string;
    part: string;
    how: ValueChangeEntry['how'];
    payload: string;
    undone: number;
  }>(
    `SELECT id_text(e.id) AS id, e.kind, e.cause_id IS NOT NULL AS cause, json_extract(payload_json(c.payload), '$.turnId') AS cause_turn, e.ts, v.seq, payload_json(v.target) AS target, v.field, v.part, v.how, payload_json(e.payload) AS payload, v.undone
     FROM value_change_rows v JOIN event_rows e ON e.seq = v.seq LEFT JOIN event_rows c ON c.id = e.cause_id
     WHERE v.chat = ${chatKeyOf('value_changes', '?1')} AND v.target = payload_packed(?2) ${field === undefined ? '' : 'AND v.field = ?3'}
     ORDER BY v.seq DESC, v.part LIMIT 100`,
    // One field's changes are read from its newest back, a hundred at most; as `?3 IS NULL OR
    // field = ?3`, every change of every field of the target was read and sorted.
    field === undefined ? [chatId, editKey(target)] : [chatId, editKey(target), field],
  );
  const firstTurn = db.get<{ seq: number | null }>('SELECT min(seq) AS seq FROM transcript WHERE chat_id = ?', [chatId])?.seq ?? null;
  const turns = rows.map((row) =>
    row.cause_turn
      ? db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [chatId, row.cause_turn])
      : db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND seq < ? AND hidden = 0 ORDER BY seq DESC LIMIT 1', [chatId, row.seq]),
  );
  const numbers = lineNumbers(db, chatId, turns.flatMap((turn) => (turn ? [turn.seq] : [])));
  return rows.map((row, i) => {
    const turn = turns[i];
    const by: ChangedBy = row.cause ? 'story' : row.kind !== 'manual_edit' && (firstTurn === null || row.seq < firstTurn) ? 'opening' : 'player';
    return {
      eventId: row.id,
      change: changeKey({ target: row.target, field: row.field, part: row.part || undefined }),
      field: row.field,
      part: row.part,
      how: row.how,
      value: valueOf(row),
      by,
      turnSeq: turn?.seq ?? null,
      turnNumber: turn ? numbers.get(turn.seq)! : null,
      ts: row.ts,
      undone: row.undone === 1,
      undoable: row.undone === 0 && row.how !== 'refused',
    };
  });
}

/**
 * Each line's number in the story (from 1): the lines up to it that are not deleted. Counted from
 * the start to the first line asked for, then on from each to the next, so the story is walked
 * once however many lines are asked for; and as the rows in the transcript's index less the
 * deleted ones in theirs (0068), so no row is read. Counting each line's own way read every row
 * before it, up to a hundred times a "Why?" (234 ms at 10,000 turns, now 3.2).
 */
function lineNumbers(db: Db, chatId: string, seqs: number[]): Map<number, number> {
  const numbers = new Map<number, number>();
  let number = 0;
  let after = -1;
  for (const seq of [...new Set(seqs)].sort((a, b) => a - b)) {
    number += db.get<{ n: number }>(
      `SELECT (SELECT count(*) FROM transcript WHERE chat_id = ?1 AND seq > ?2 AND seq <= ?3)
            - (SELECT count(*) FROM transcript WHERE chat_id = ?1 AND seq > ?2 AND seq <= ?3 AND hidden = 1) AS n`,
      [chatId, after, seq],
    )!.n;
    numbers.set(seq, number);
    after = seq;
  }
  return numbers;
}

/**
 * A change's value, from the event that made it (migration 0066): what its kind declares of the
 * payload, as it was projected. Null for a change its kind no longer declares.
 */
function valueOf(row: { kind: string; payload: string; target: string; field: string; part: string }): unknown {
  const change = definitionOf(row.kind)
    ?.changes?.(JSON.parse(row.payload) as never)
    .find((c) => c.target === row.target && c.field === row.field && (c.part ?? '') === row.part);
  // As JSON, as the rows kept it before: a key left undefined is no key.
  return change === undefined ? null : (JSON.parse(JSON.stringify(change.value ?? null)) as unknown);
}

/**
 * Whether a later change in force set the value again after the one at `seq`: then taking that one
 * back leaves the later value standing, and the player is told so.
 */
export function setAgainLater(db: Db, chatId: string, target: string, field: string, seq: number): boolean {
  return (
    db.get(
      `SELECT 1 AS x FROM value_change_rows WHERE chat = ${chatKeyOf('value_changes', '?')} AND target = payload_packed(?) AND field = ? AND seq > ? AND undone = 0 AND how IN ('set', 'create') LIMIT 1`,
      [chatId, target, field, seq],
    ) !== undefined
  );
}

export const valueHistoryCalls = {
  valueHistory: defineQuery({
    args: z.tuple([id, targetArg, z.string().max(40).optional()]),
    reads: ['value_changes', 'undone_changes', 'transcript'],
    run: ({ db }, chatId: string, target: EditTarget, field?: string) => valueHistory(db, chatId, target, field),
  }),
};
