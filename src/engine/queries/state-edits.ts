import type { Db } from '../db/port.ts';
import { markKey, type EditTarget } from '../events/edit-marks.ts';
import { VISIBLE } from '../log/visibility.ts';
import { chatRef } from '../log/row.ts';
import { currentValueOf } from '../state/tracked-value.ts';
import { trackedValueOf } from '../state/tracked-values.ts';
import { rareKind } from '../log/rare-kinds.ts';
import { chatKeyOf } from '../events/tables.ts';

/** The value a drawer edit replaces, as the projection holds it; undefined when the target is gone. */
export function currentValue(db: Db, chatId: string, target: EditTarget, field: string): unknown {
  switch (target.type) {
    case 'chat_state': {
      const row = db.get<{ weather: string; narrative_anchor: string; director_note: string; reply_order: string; fiction_time: string }>(
        'SELECT weather, narrative_anchor, director_note, reply_order, fiction_time FROM chat_state WHERE chat_id = ?',
        [chatId],
      );
      return (
        row &&
        ({ weather: row.weather, narrativeAnchor: row.narrative_anchor, directorNote: row.director_note, replyOrder: row.reply_order, fictionTime: row.fiction_time } as Record<string, unknown>)[field]
      );
    }
    case 'chat':
      return db.get<{ title: string }>('SELECT title FROM chats WHERE id = ?', [chatId])?.title;
    case 'activity': {
      const row = db.get<{ slot: string; posture: string; attention: string; verb: string; muted: number }>(
        "SELECT slot, posture, attention, json_extract(action, '$.verb') AS verb, muted FROM activity WHERE chat_id = ? AND entity = ?",
        [chatId, target.entity],
      );
      return row && ({ slot: row.slot, posture: row.posture, attention: row.attention, doing: row.verb, muted: row.muted } as Record<string, unknown>)[field];
    }
    case 'edge': {
      const row = db.get<{ affinity: number; trust: number; summary: string }>('SELECT affinity, trust, summary FROM edges WHERE chat_id = ? AND source = ? AND target = ?', [
        chatId,
        target.source,
        target.target,
      ]);
      if (!row) return undefined;
      if (field === 'knowledge') {
        return db
          .all<{ fact: string }>(`SELECT fact FROM edge_fact_rows WHERE chat = ${chatKeyOf('edge_facts', '?')} AND source = id_key(?) AND target = id_key(?) ORDER BY added_seq, fact_key`, [chatId, target.source, target.target])
          .map((f) => f.fact);
      }
      return ({ affinity: row.affinity, trust: row.trust, summary: row.summary } as Record<string, unknown>)[field];
    }
    case 'memory': {
      const row = db.get<{ summary: string; significance: number }>('SELECT summary, significance FROM memories WHERE memory_key = id_key(?) AND chat_id = ?', [target.id, chatId]);
      return row && (field === 'summary' ? row.summary : row.significance);
    }
    case 'turn':
      return db.get<{ text: string }>('SELECT text FROM transcript WHERE turn_key = id_key(?) AND chat_id = ?', [target.id, chatId])?.text;
    default: {
      const tracked = trackedValueOf(target.type);
      return tracked && currentValueOf(db, tracked, target, chatId, field);
    }
  }
}

/** The chat's latest drawer edit still in force, made since the host's last reset: what "Undo last edit" takes back. */
export function latestEdit(db: Db, chatId: string): { id: string; field: string } | undefined {
  return db.get<{ id: string; field: string }>(
    `SELECT e.id, json_extract(e.payload, '$.field') AS field FROM events e
     WHERE +e.chat_ref = ${chatRef('?1')} AND e.kind = 'manual_edit' AND ${rareKind('e')} AND ${VISIBLE('e')}
       AND json_extract(e.payload, '$.target.type') != 'chat'
       -- an edit from before the host's reset changed what the reset has since cleared
       -- (both terms kept off the index by chat: it would read a long chat's every event after
       -- the reset, where the rare kinds' index holds the few edits)
       AND +e.seq > coalesce((SELECT b.reset_seq FROM chats c JOIN bots b ON b.id = c.bot_id WHERE c.id = ?1), 0)
     ORDER BY e.event_key DESC LIMIT 1`,
    [chatId],
  );
}

/** Which drawer values carry "edited by you", by `editMarkKey` (events/edit-marks.ts). */
export function editedValues(db: Db, chatId: string): string[] {
  return db
    .all<{ target: string; field: string }>('SELECT target, field FROM state_edits WHERE chat_id = ?', [chatId])
    .map((r) => markKey(r.target, r.field))
    .sort();
}
