import type { Db } from '../db/port.ts';
import { idOfSeq } from '../log/visibility.ts';

/**
 * The reply a new turn follows: the chat's latest reply as the player reads it (its
 * `assistant_turn_started`), or null before any. A player's line is caused by it, and a reply by
 * the line it answers (or, given the turn unasked, by the reply before), so a story's turns are a
 * chain through the versions they followed. A version that gives way takes the turns written after
 * it along: two devices that regenerated a reply apart and went on hold two branches at that
 * reply, each version carrying its own continuation, never interleaved (issue 36, part 1).
 */
export function followedReply(db: Db, chatId: string): string | null {
  const row = db.get<{ seq: number }>("SELECT seq FROM transcript WHERE chat_id = ? AND hidden = 0 AND role = 'assistant' ORDER BY seq DESC LIMIT 1", [chatId]);
  return row ? (idOfSeq(db, row.seq) ?? null) : null;
}

/**
 * What a new version of the reply at `seq` follows: what the version it replaces followed (a
 * version of a reply is in the same place in the story). For a player's line left unanswered, the
 * line itself.
 */
export function followedByVersion(db: Db, seq: number, role: string): string | null {
  const row = db.get<{ id: string; cause_id: string | null }>('SELECT id, cause_id FROM events WHERE seq = ?', [seq]);
  if (!row) return null;
  return role === 'assistant' ? row.cause_id : row.id;
}

/**
 * The forks among a chat's replies: versions that each carry turns written after them (devices
 * that went on apart after regenerating). A continuation hidden by a rewind does not count.
 */
export function hasContinuation(db: Db, versionId: string): boolean {
  return Boolean(
    db.get(
      `SELECT 1 AS x FROM events e WHERE e.cause_key = id_key(?) AND e.kind IN ('user_turn', 'assistant_turn_started')
         AND NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = e.seq AND v.hidden_by IS NOT NULL) LIMIT 1`,
      [versionId],
    ),
  );
}
