import type { Db } from '../db/port.ts';
import type { LoggedEvent } from '../events/define.ts';
import type { EntityRef } from '../events/fields.ts';
import { z } from 'zod';
import { defineCommand, defineQuery, id, seq } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import type { LogContext } from '../log/context.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { VISIBLE } from '../log/visibility.ts';
import { chatRef } from '../log/row.ts';
import { castOf } from '../analysis/cast.ts';
import { rareKind } from '../log/rare-kinds.ts';
import { chatKeyOf } from '../events/tables.ts';

/** What a rewind will undo, for the preview the player sees before anything changes. */
export interface RewindImpact {
  /** Transcript rows (your turns and replies) that will be hidden. */
  turnsHidden: number;
  clock: { from: string; to: string };
  place: { from: string | null; to: string | null };
  /** Scenes opened after the point (gone) and scenes closed after it (open again). */
  scenesUndone: number;
  /** Net change per directed pair whose feelings change; facts it will no longer know. */
  feelings: { source: EntityRef; target: EntityRef; sourceName: string; targetName: string; affinity: number; trust: number; factsForgotten: number }[];
  memoriesForgotten: { ownerId: string; name: string; count: number }[];
  pinsLost: number;
}

/** One rewind still in force and not hidden: the transcript's "N turns rewound — Restore" stub. */
export interface RewoundStretch {
  /** The chat_rewound event's seq: where the stub sits, and what Restore names. */
  seq: number;
  turns: number;
}

function appendRewind(ctx: LogContext, chatId: string, fromSeq: number, stamp: (d: Parameters<typeof appendEvents>[1]) => Parameters<typeof appendEvents>[1]): LoggedEvent {
  const { db } = ctx;
  const created = db.get<{ created_seq: number }>('SELECT created_seq FROM chats WHERE id = ?', [chatId]);
  if (!created) throw new CommandRejectedError('That chat does not exist (or was itself rewound away).');
  if (fromSeq <= created.created_seq) throw new CommandRejectedError('A rewind cannot go back past the start of the chat.');
  const from = db.get<{ id: string }>(`SELECT id FROM events e WHERE seq = ? AND chat_id = ? AND ${VISIBLE('e')}`, [fromSeq, chatId]);
  if (!from) throw new CommandRejectedError('That point is not part of this chat as it stands.');
  const [event] = appendEvents(ctx, stamp([{ kind: 'chat_rewound', chatId, payload: { from: from.id } }]));
  if (!event) throw new Error('chat_rewound was not appended');
  return event;
}


/**
 * The chat's rewinds still in force and shown, each with how many turns it hid, between two seqs.
 * Found among the rewinds (`events_by_kind`), which are few: by the chat and the seqs (the `+`s
 * keep those indexes off), every event of a page's stretch was read, ten a turn with analysis.
 */
export function rewoundStretches(db: Db, chatId: string, afterSeq: number, beforeSeq: number): RewoundStretch[] {
  return db.all<RewoundStretch>(
    `SELECT r.seq,
       (SELECT count(*) FROM visibility v JOIN events h ON h.seq = v.seq
         WHERE v.hidden_by = r.seq AND v.superseded_by IS NULL AND h.kind IN ('user_turn', 'assistant_turn_started')) AS turns
     FROM events r
     WHERE +r.chat_ref = ${chatRef('?1')} AND r.kind = 'chat_rewound' AND ${rareKind('r')} AND +r.seq > ?2 AND +r.seq < ?3 AND ${VISIBLE('r')}
       AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'rewind_undone' AND ${rareKind('u')} AND u.chat_ref = r.chat_ref
                       AND json_extract(u.payload, '$.rewind') = r.id)
       AND EXISTS (SELECT 1 FROM visibility v WHERE v.hidden_by = r.seq)
     ORDER BY r.seq`,
    [chatId, afterSeq, beforeSeq],
  );
}

const DRY_RUN = Symbol('dry run');

interface Snapshot {
  turns: number;
  clock: string;
  place: string | null;
  scenes: Map<string, boolean>;
  edges: Map<string, { source: string; target: string; affinity: number; trust: number; facts: number }>;
  memories: { id: string; owner: string; pinned: boolean }[];
}

function snapshot(db: Db, chatId: string): Snapshot {
  const state = db.get<{ fiction_time: string; place: string | null }>(
    `SELECT s.fiction_time,
       (SELECT c.name FROM scenes sc JOIN containers c ON c.chat_id = sc.chat_id AND c.id = sc.container_id WHERE sc.chat_id = s.chat_id AND sc.id = s.active_scene_id) AS place
     FROM chat_state s WHERE s.chat_id = ?`,
    [chatId],
  );
  return {
    turns: db.get<{ n: number }>('SELECT count(*) AS n FROM transcript WHERE chat_id = ?', [chatId])!.n,
    clock: state?.fiction_time ?? '',
    place: state?.place ?? null,
    scenes: new Map(db.all<{ id: string; closed: number }>('SELECT id, closed_seq IS NOT NULL AS closed FROM scenes WHERE chat_id = ?', [chatId]).map((s) => [s.id, s.closed === 1])),
    edges: new Map(
      db
        .all<{ source: string; target: string; affinity: number; trust: number; facts: number }>(
          `SELECT e.source, e.target, e.affinity, e.trust,
             (SELECT count(*) FROM edge_fact_rows f WHERE f.chat = ${chatKeyOf('edge_facts', 'e.chat_id')} AND f.source = id_key(e.source) AND f.target = id_key(e.target)) AS facts
           FROM edges e WHERE e.chat_id = ?`,
          [chatId],
        )
        .map((e) => [`${e.source}\u0000${e.target}`, e]),
    ),
    memories: db
      .all<{ id: string; owner: string; pinned: number }>('SELECT id, owner_id AS owner, pinned FROM memories WHERE chat_id = ?', [chatId])
      .map((m) => ({ ...m, pinned: m.pinned === 1 })),
  };
}

function impact(db: Db, chatId: string, before: Snapshot, after: Snapshot): RewindImpact {
  const names = new Map((castOf(db, chatId)?.members ?? []).map((m) => [m.ref as string, m.name]));
  const nameOf = (ref: string) => names.get(ref) ?? (ref === 'you' ? 'You' : 'someone');
  const feelings: RewindImpact['feelings'] = [];
  for (const [key, was] of before.edges) {
    const now = after.edges.get(key);
    const affinity = Math.round((now?.affinity ?? 50) - was.affinity);
    const trust = Math.round((now?.trust ?? 50) - was.trust);
    const factsForgotten = Math.max(0, was.facts - (now?.facts ?? 0));
    if (affinity || trust || factsForgotten) {
      feelings.push({ source: was.source, target: was.target, sourceName: nameOf(was.source), targetName: nameOf(was.target), affinity, trust, factsForgotten });
    }
  }
  const kept = new Map(after.memories.map((m) => [m.id, m]));
  const forgotten = new Map<string, number>();
  for (const m of before.memories) if (!kept.has(m.id)) forgotten.set(m.owner, (forgotten.get(m.owner) ?? 0) + 1);
  return {
    turnsHidden: before.turns - after.turns,
    clock: { from: before.clock, to: after.clock },
    place: { from: before.place, to: after.place },
    scenesUndone: [...before.scenes].filter(([id, closed]) => !after.scenes.has(id) || (closed && !after.scenes.get(id))).length,
    feelings,
    memoriesForgotten: [...forgotten].map(([ownerId, count]) => ({ ownerId, name: nameOf(ownerId), count })),
    pinsLost: before.memories.filter((m) => m.pinned && !kept.get(m.id)?.pinned).length,
  };
}

/** Rewind (hide the story from a point), its preview, and restoring what a rewind hid. */
export const rewindCalls = {
  /**
   * Hides the chat's story from the event at `fromSeq` (a transcript row's seq, this tab's handle
   * for it) on; the rewind names that event by id. The hidden events stay in the log for Restore.
   */
  rewind: defineCommand({
    args: z.tuple([id, seq]),
    rebuilds: true,
    run(ctx, chatId: string, fromSeq: number): { seq: number } {
      const { seq } = command(ctx, ctx.commandId, (stampFirst) => appendRewind(ctx, chatId, fromSeq, stampFirst), (first) => first);
      return { seq };
    },
  }),

  /**
   * What `rewind(chatId, fromSeq)` would change, measured by doing it in a transaction that is
   * then rolled back: the preview and the rewind cannot disagree.
   */
  previewRewind: defineQuery({
    args: z.tuple([id, seq]),
    run(ctx, chatId: string, fromSeq: number): RewindImpact {
      const { db } = ctx;
      const before = snapshot(db, chatId);
      let after: Snapshot | undefined;
      try {
        db.transaction(() => {
          appendRewind(ctx, chatId, fromSeq, (drafts) => drafts);
          after = snapshot(db, chatId);
          throw DRY_RUN;
        });
      } catch (error) {
        if (error !== DRY_RUN) throw error;
      }
      return impact(db, chatId, before, after!);
    },
  }),

  /**
   * Shows again what a rewind hid: the rewind at `rewindSeq`, or the latest one still in force.
   * A rewind that a newer rewind has itself hidden cannot be restored until that one is.
   */
  undoRewind: defineCommand({
    args: z.tuple([id, seq.nullable().optional()]),
    rebuilds: true,
    run(ctx, chatId: string, rewindSeq?: number | null): { seq: number } {
      const { db } = ctx;
      const { seq } = command(ctx, ctx.commandId, (stampFirst) => {
        const target = db.get<{ id: string }>(
          `SELECT r.id FROM events r
           WHERE r.chat_ref = ${chatRef('?1')} AND r.kind = 'chat_rewound' AND ${rareKind('r')} AND ${VISIBLE('r')} AND (?2 IS NULL OR r.seq = ?2)
             AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'rewind_undone' AND ${rareKind('u')} AND u.chat_ref = r.chat_ref
                             AND json_extract(u.payload, '$.rewind') = r.id)
           ORDER BY r.event_key DESC LIMIT 1`,
          [chatId, rewindSeq ?? null],
        );
        if (!target) {
          throw new CommandRejectedError(
            rewindSeq == null ? 'There is no rewind to undo in this chat.' : 'That rewind cannot be restored: it was already restored, or a later rewind hid it.',
          );
        }
        const [event] = appendEvents(ctx, stampFirst([{ kind: 'rewind_undone', chatId, payload: { rewind: target.id } }]));
        if (!event) throw new Error('rewind_undone was not appended');
        return event;
      }, (first) => first);
      return { seq };
    },
  }),
};
