import type { Db, SqlParam } from '../db/port.ts';
import { rareKind } from './rare-kinds.ts';
import { seqFromId } from './row.ts';
import { compareIds } from '../ids.ts';

/**
 * What regenerate, rewind and undo do to the log, as projected state: rows of `visibility` for
 * events no longer shown. Event rows themselves never change. The marker events' `marks` hooks
 * call these, so the same code runs when a command appends a marker and when a rebuild replays it.
 */

const seqOfId = (db: Db, id: string): number | undefined => db.get<{ seq: number }>('SELECT seq FROM event_rows WHERE id = id_key(?)', [id])?.seq;
export const idOfSeq = (db: Db, seq: number): string | undefined => db.get<{ id: string }>('SELECT id FROM events WHERE seq = ?', [seq])?.id;

/**
 * Forgets what markers recorded about the events `seqsSql` selects: their visibility, the changes
 * of theirs taken back, and those their own markers took back (a chat forgotten, a log re-marked).
 */
export function forgetMarks(db: Db, seqsSql: string, params: readonly SqlParam[]): void {
  db.run(`DELETE FROM visibility WHERE seq IN (${seqsSql})`, params);
  db.run(`DELETE FROM undone_changes WHERE seq IN (${seqsSql}) OR undone_by IN (${seqsSql})`, [...params, ...params]);
}

/** Whether an event is shown: neither superseded by a regenerate nor hidden by a rewind. */
export const VISIBLE = (alias: string): string => `NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = ${alias}.seq)`;

/**
 * The event and everything it caused, transitively (a reply and its analysis results), among the
 * events before `marker`: a marker sees the log as it was when it was written, so replaying it
 * later gives the same answer.
 */
export function causedClosure(db: Db, id: string, marker: { id: string }): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE caused(id, seq) AS (
         SELECT id, seq FROM event_rows WHERE id = id_key(?1)
         UNION SELECT e.id, e.seq FROM event_rows e JOIN caused c ON e.cause_id = c.id WHERE e.id < id_key(?2)
       ) SELECT seq FROM caused ORDER BY seq`,
      [id, marker.id],
    )
    .map((r) => r.seq);
}

/**
 * An event whose cause is not shown is not shown either, for the same reason (the same superseding
 * marker, the same rewind). On one device nothing is written under a cause no longer shown; across
 * devices it is: the laptop analyses a reply that the phone has meanwhile regenerated, and that
 * analysis arrives after the regenerate. Run for each event in id order, after the markers before
 * it, so a merge, an append and a replay all agree. Answers whether the event is now not shown.
 */
export function inheritFromCause(db: Db, event: { seq: number; causeId: string | null }): boolean {
  if (event.causeId === null) return false;
  const cause = db.get<{ superseded_by: number | null; hidden_by: number | null }>(
    'SELECT v.superseded_by, v.hidden_by FROM event_rows c JOIN visibility v ON v.seq = c.seq WHERE c.id = id_key(?)',
    [event.causeId],
  );
  if (!cause) return false;
  db.run('INSERT INTO visibility (seq, superseded_by, hidden_by) VALUES (?, ?, ?) ON CONFLICT (seq) DO NOTHING', [event.seq, cause.superseded_by, cause.hidden_by]);
  return true;
}

/** The reply `id` and all it caused give way to `marker` (a regenerate, another version chosen); they stay in the log. */
export function supersede(db: Db, id: string, marker: { id: string; seq: number }): number[] {
  const closure = causedClosure(db, id, marker);
  db.run(
    `INSERT INTO visibility (seq, superseded_by) SELECT value, ?1 FROM json_each(?2) WHERE true
     ON CONFLICT (seq) DO UPDATE SET superseded_by = coalesce(superseded_by, excluded.superseded_by)`,
    [marker.seq, JSON.stringify(closure)],
  );
  return closure;
}

/** Everything the event `id` caused (not the event itself) gives way to `marker`: an edited reply's old analysis. */
export function supersedeCaused(db: Db, id: string, marker: { id: string; seq: number }): number[] {
  const children = db.all<{ id: string }>('SELECT id_text(id) AS id FROM event_rows WHERE cause_id = id_key(?) AND id < id_key(?)', [id, marker.id]);
  return children.flatMap((child) => supersede(db, child.id, marker));
}

/**
 * The reply `id` and all it caused are in force again (its version was chosen): what the marker
 * that superseded it took away with it comes back, and only that. A reply later in its closure
 * that another marker gave way (a version of it chosen, a regenerate) stays as that marker left
 * it: turns are caused by the reply they followed, so a version's closure is the rest of its branch.
 */
export function unsupersede(db: Db, id: string, marker: { id: string }): number[] {
  const by = db.get<{ superseded_by: number | null }>('SELECT v.superseded_by FROM event_rows e JOIN visibility v ON v.seq = e.seq WHERE e.id = id_key(?)', [id])?.superseded_by;
  if (by === undefined || by === null) return [];
  const closure = JSON.stringify(causedClosure(db, id, marker));
  db.run('DELETE FROM visibility WHERE seq IN (SELECT value FROM json_each(?1)) AND superseded_by = ?2 AND hidden_by IS NULL', [closure, by]);
  db.run('UPDATE visibility SET superseded_by = NULL WHERE seq IN (SELECT value FROM json_each(?1)) AND superseded_by = ?2', [closure, by]);
  followCauses(db, closure);
  keepOneVersionShown(db, id, closure, marker);
  return JSON.parse(closure) as number[];
}

/**
 * A reply in the restored stretch shows one version, the one its newest deciding event left
 * shown: a version made (a regenerate) or chosen, before `marker`. A row keeps one marker, so a
 * version given way to a newer one while already hidden by the marker now undone (another device's
 * regenerate further up, merged before it) came back beside it; the merge property test found it.
 * The reply being restored itself (`id`) is left to its caller, which chooses among its versions.
 */
function keepOneVersionShown(db: Db, id: string, seqsJson: string, marker: { id: string }): void {
  const own = new Set(replyVersions(db, id, marker).map((v) => v.id));
  const restored = db.all<{ id: string }>(
    `SELECT e.id FROM events e WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.kind = 'assistant_turn_started' AND ${VISIBLE('e')} ORDER BY e.id`,
    [seqsJson],
  );
  const settled = new Set<string>(own);
  for (const { id: started } of restored) {
    if (settled.has(started)) continue;
    const versions = replyVersions(db, started, marker);
    for (const v of versions) settled.add(v.id);
    const shown = versions.filter((v) => v.shown);
    if (shown.length < 2) continue;
    const ids = JSON.stringify(versions.map((v) => v.id));
    const deciding = db.get<{ id: string; seq: number; version: string }>(
      `SELECT id, seq, version FROM (
         SELECT id, seq, id AS version FROM events WHERE event_key IN (SELECT id_key(value) FROM json_each(?1)) AND json_extract(payload, '$.regenerateOf') IS NOT NULL
         UNION ALL
         SELECT id, seq, json_extract(payload, '$.version') AS version FROM events
         WHERE kind = 'reply_version_chosen' AND ${rareKind()} AND json_extract(payload, '$.version') IN (SELECT value FROM json_each(?1)) AND event_key < id_key(?2)
       ) ORDER BY id DESC LIMIT 1`,
      [ids, marker.id],
    );
    if (!deciding) continue;
    for (const v of shown) if (v.id !== deciding.version) supersede(db, v.id, deciding);
  }
}

/**
 * What a marker brought back stays away where its cause is not shown: a version chosen, or a
 * stretch restored, whose turn followed a reply given way since (turns are caused by the reply they
 * followed). In id order, as `inheritFromCause` runs everywhere else.
 */
function followCauses(db: Db, seqsJson: string): void {
  const back = db.all<{ seq: number; cause_id: string | null }>(
    `SELECT e.seq, e.cause_id FROM events e WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.cause_id IS NOT NULL AND ${VISIBLE('e')} ORDER BY e.id`,
    [seqsJson],
  );
  for (const row of back) inheritFromCause(db, { seq: row.seq, causeId: row.cause_id });
}

/**
 * Every version of the reply that `startedId` is a version of (its assistant_turn_started events,
 * linked by `regenerateOf`), oldest first, as the log stood before `marker`.
 */
export function replyVersions(db: Db, startedId: string, marker?: { id: string }): { id: string; seq: number; shown: boolean }[] {
  const before = marker?.id ?? null;
  // Up to the first version, then every version made from it, one indexed lookup per step (a
  // recursive query would scan the whole index at each step).
  let first = startedId;
  for (let parent = regeneratedFrom(db, first); parent; parent = regeneratedFrom(db, first)) first = parent;
  const root = db.get<{ id: string; seq: number }>('SELECT id_text(id) AS id, seq FROM event_rows WHERE id = id_key(?)', [first]);
  if (!root) return [];
  const versions = [root];
  for (let i = 0; i < versions.length; i++) {
    versions.push(
      ...db.all<{ id: string; seq: number }>(
        `SELECT id_text(id) AS id, seq FROM event_rows INDEXED BY events_by_regenerated
         WHERE json_extract(payload_json(payload), '$.regenerateOf') = ? AND kind = 'assistant_turn_started' AND (?2 IS NULL OR id < id_key(?2))`,
        [versions[i]!.id, before],
      ),
    );
  }
  versions.sort((a, b) => compareIds(a.id, b.id));
  const hidden = new Set(
    db.all<{ seq: number }>('SELECT seq FROM visibility WHERE seq IN (SELECT value FROM json_each(?))', [JSON.stringify(versions.map((v) => v.seq))]).map((r) => r.seq),
  );
  return versions.map((v) => ({ ...v, shown: !hidden.has(v.seq) }));
}

/** Which version the reply started at `startedSeq` is (from 1, oldest first), of how many. */
export function versionOfReply(db: Db, startedSeq: number): { number: number; of: number } | undefined {
  const started = idOfSeq(db, startedSeq);
  if (!started) return undefined;
  const versions = replyVersions(db, started);
  return { number: versions.findIndex((v) => v.seq === startedSeq) + 1, of: versions.length };
}

const regeneratedFrom = (db: Db, id: string): string | undefined =>
  db.get<{ of: string | null }>("SELECT json_extract(payload, '$.regenerateOf') AS of FROM events WHERE event_key = id_key(?)", [id])?.of ?? undefined;

/** Another version of a reply chosen: it is in force, every other version is superseded. */
export function chooseVersion(db: Db, versionId: string, marker: { id: string; seq: number }): number[] {
  const changed: number[] = [];
  for (const version of replyVersions(db, versionId, marker)) {
    changed.push(...(version.id === versionId ? unsupersede(db, version.id, marker) : supersede(db, version.id, marker)));
  }
  return changed;
}

/**
 * A rewind: hides the chat's events from `fromId` up to the rewind, and whatever they caused. Seq
 * order is id order, so the stretch is a range of the index by chat.
 */
export function hide(db: Db, chatId: string, fromId: string, rewind: { id: string; seq: number }): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE hidden(id, seq) AS (
         SELECT event_key, seq FROM events WHERE chat_id = ?1 AND seq >= ${seqFromId('?2')} AND seq < ?4
         UNION SELECT e.id, e.seq FROM event_rows e JOIN hidden h ON e.cause_id = h.id WHERE e.seq < ?4
       )
       INSERT INTO visibility (seq, hidden_by) SELECT seq, ?4 FROM hidden WHERE true
       ON CONFLICT (seq) DO UPDATE SET hidden_by = ?4 WHERE hidden_by IS NULL
       RETURNING seq`,
      [chatId, fromId, rewind.id, rewind.seq],
    )
    .map((r) => r.seq);
}

/** An undo: shows again what the rewind `rewindId` hid. */
export function unhide(db: Db, rewindId: string): number[] {
  const rewindSeq = seqOfId(db, rewindId);
  if (rewindSeq === undefined) return [];
  const shown = db.all<{ seq: number }>('SELECT seq FROM visibility WHERE hidden_by = ?', [rewindSeq]).map((r) => r.seq);
  db.run('DELETE FROM visibility WHERE hidden_by = ? AND superseded_by IS NULL', [rewindSeq]);
  db.run('UPDATE visibility SET hidden_by = NULL WHERE hidden_by = ?', [rewindSeq]);
  followCauses(db, JSON.stringify(shown));
  return shown;
}
