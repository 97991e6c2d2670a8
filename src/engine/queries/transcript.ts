import type { Db } from '../db/port.ts';
import { TURN_PERSONA_SQL } from '../authoring/personas.ts';
import { replyVersions, versionOfReply } from '../log/visibility.ts';
import { hasContinuation } from '../turn/followed-reply.ts';
import { hostResetSeq } from './chats.ts';
import { rewoundStretches, type RewoundStretch } from '../rewind/commands.ts';
import type { Segment } from '../events/turns.ts';
import { segmentsOf } from '../turn/stored-segments.ts';
import type { EntityRef } from '../events/fields.ts';
import { z } from 'zod';
import { defineQuery, id, seq } from '../call.ts';

export interface TranscriptTurn {
  turnId: string;
  seq: number;
  role: 'user' | 'assistant';
  speaker: EntityRef;
  speakerName: string;
  /** The speaker's picture: the bot's, or for a line of the player's, the persona's who wrote it. */
  speakerAvatar: string | null;
  text: string;
  segments: Segment[] | null;
  status: 'streaming' | 'done' | 'truncated';
  reason: string | null;
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  error: { code: string; message: string } | null;
  /** A thinking model's thinking, shown folded above its reply; never part of `text`. `ms`: how long, when known. */
  thinking: { text: string; ms: number | null } | null;
  /** Rewritten by the player ("edited" beside the speaker). */
  edited: boolean;
  /** Deleted from view by the player: shown as a stub that offers it back, never sent to the narrator. */
  hidden: boolean;
  /**
   * On the chat's latest reply when it has more than one version: which is shown, of how many, and
   * whether the one shown was written on another device (sync brought it, and it took the place
   * of the answer written here).
   */
  /** Its versions, on the latest reply, and on a reply where the story forks (`fork`: two versions each carry what followed them). */
  versions: { number: number; of: number; otherDevice?: true; fork?: true } | null;
}

export interface TranscriptPage {
  turns: TranscriptTurn[];
  /** The host bot's last reset: turns before it show behind a "before the reset" divider. */
  resetSeq: number | null;
  /**
   * Rewinds in force from this page's first turn to the turn after its last (or from the story's
   * start, or to its end, where the page reaches them): the "N turns rewound — Restore" stubs, by
   * seq. Pages that meet share no stub.
   */
  rewinds: RewoundStretch[];
  /** Pass as `beforeSeq` to load the page before this one; null when this page reaches the start. */
  olderCursor: number | null;
  /** Pass as `afterSeq` to load the page after this one; null when this page reaches the end. */
  newerCursor: number | null;
}

/** A page opened somewhere in the story (a jump, a search hit): where it sits, and the turn asked for. */
export interface TranscriptWindow extends TranscriptPage {
  /** How many turns come before the page's first: its place in the whole story. */
  firstIndex: number;
  /** The turn the page was opened at; null in a story with no turns. */
  targetSeq: number | null;
}

/** Where to open a window: the nth turn, a turn (or the first after it), a moment in real or story time. */
export type TranscriptPlace = { index: number } | { seq: number } | { sentAt: number } | { storyTime: string };

interface TurnRow {
  turn_id: string;
  seq: number;
  role: 'user' | 'assistant';
  speaker: string;
  speaker_name: string | null;
  speaker_avatar: string | null;
  text: string;
  segments: string | null;
  status: TranscriptTurn['status'];
  reason: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  error: string | null;
  thinking: string | null;
  thinking_ms: number | null;
  edited: number;
  hidden: number;
}

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;
const pageSize = (limit: number | undefined) => Math.max(1, Math.min(MAX_PAGE_SIZE, limit ?? DEFAULT_PAGE_SIZE));

/**
 * Up to `limit` + 1 turns on one side of `seq`, nearest first: the extra one says whether more lie
 * beyond, and where the page's stubs end. Keyed by seq on an index, so a chat of 10,000 turns costs
 * what a new one does.
 */
function turnsBeside(db: Db, chatId: string, side: 'before' | 'from' | 'after', seq: number, limit: number): TurnRow[] {
  const [compare, order] = side === 'before' ? ['<', 'DESC'] : side === 'from' ? ['>=', 'ASC'] : ['>', 'ASC'];
  return db.all<TurnRow>(
    `SELECT t.turn_id, t.seq, t.role, t.speaker, t.text, t.segments, t.status, t.reason, t.model,
       t.prompt_tokens, t.completion_tokens, t.error, t.thinking, t.thinking_ms, t.edited, t.hidden,
       CASE WHEN t.speaker = 'you' THEN (SELECT name FROM you WHERE id = ${TURN_PERSONA_SQL})
            ELSE (SELECT name FROM bots WHERE id = t.speaker) END AS speaker_name,
       CASE WHEN t.speaker = 'you' THEN (SELECT avatar FROM you WHERE id = ${TURN_PERSONA_SQL})
            ELSE (SELECT avatar FROM bots WHERE id = t.speaker) END AS speaker_avatar
     FROM transcript t
     WHERE t.chat_id = ? AND t.seq ${compare} ?
     ORDER BY t.seq ${order} LIMIT ?`,
    [chatId, seq, limit + 1],
  );
}

function turnOf(r: TurnRow): TranscriptTurn {
  return {
    turnId: r.turn_id,
    seq: r.seq,
    role: r.role,
    speaker: r.speaker,
    speakerName: r.speaker_name ?? (r.speaker === 'you' ? 'You' : 'Unknown'),
    speakerAvatar: r.speaker_avatar ?? null,
    text: r.text,
    segments: segmentsOf<Segment>(r.segments, r.text),
    status: r.status,
    reason: r.reason,
    model: r.model,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    error: r.error === null ? null : (JSON.parse(r.error) as { code: string; message: string }),
    thinking: r.thinking === null ? null : { text: r.thinking, ms: r.thinking_ms },
    edited: r.edited === 1,
    hidden: r.hidden === 1,
    versions: null,
  };
}

/**
 * A page from the rows on either side of where it was opened (each with its one extra row), with
 * its stubs and versions. `older` nearest first, `newer` in story order; `beforeSeq` / `afterSeq`,
 * when the page was asked for before or after a turn, is that turn.
 */
function pageOf(
  db: Db,
  chatId: string,
  rows: { older: TurnRow[]; olderLimit: number; newer: TurnRow[]; newerLimit: number; beforeSeq?: number; afterSeq?: number },
): TranscriptPage {
  // A page asked for after a turn has older turns when that turn (or one before it) is there.
  const hasOlder =
    rows.older.length > rows.olderLimit ||
    (rows.afterSeq !== undefined && db.get('SELECT 1 AS x FROM transcript WHERE chat_id = ? AND seq <= ? LIMIT 1', [chatId, rows.afterSeq]) !== undefined);
  const next = rows.beforeSeq ?? rows.newer[rows.newerLimit]?.seq;
  const turns = [...rows.older.slice(0, rows.olderLimit).reverse(), ...rows.newer.slice(0, rows.newerLimit)].map(turnOf);
  const resetSeq = hostResetSeq(db, chatId) || null;
  const first = turns[0]?.seq;
  // Only the story's latest reply offers its versions; elsewhere a reply does where the story forks.
  const latest = next === undefined ? turns.at(-1) : undefined;
  if (latest?.role === 'assistant' && latest.seq > (resetSeq ?? 0)) latest.versions = versionsOf(db, latest.seq);
  for (const seq of forksAmong(db, turns.filter((t) => t.role === 'assistant' && t !== latest && t.seq > (resetSeq ?? 0)).map((t) => t.seq))) {
    const turn = turns.find((t) => t.seq === seq)!;
    const version = versionsOf(db, seq);
    if (version) turn.versions = { ...version, fork: true };
  }
  return {
    turns,
    resetSeq,
    rewinds: rewoundStretches(db, chatId, hasOlder ? (first ?? 0) : 0, next ?? Number.MAX_SAFE_INTEGER),
    olderCursor: hasOlder ? (first ?? null) : null,
    newerCursor: next === undefined ? null : (turns.at(-1)?.seq ?? null),
  };
}

/**
 * One page of a chat's transcript, in story order: the latest turns, the page before `beforeSeq`,
 * or the page after `afterSeq`. Superseded turns are not in the transcript table at all, so they
 * never show.
 */
export function chatTranscript(
  db: Db,
  chatId: string,
  options: { beforeSeq?: number | null; afterSeq?: number | null; limit?: number } = {},
): TranscriptPage {
  const limit = pageSize(options.limit);
  if (options.afterSeq != null) {
    return pageOf(db, chatId, { older: [], olderLimit: 0, newer: turnsBeside(db, chatId, 'after', options.afterSeq, limit), newerLimit: limit, afterSeq: options.afterSeq });
  }
  const older = turnsBeside(db, chatId, 'before', options.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit);
  return pageOf(db, chatId, { older, olderLimit: limit, newer: [], newerLimit: 0, ...(options.beforeSeq == null ? {} : { beforeSeq: options.beforeSeq }) });
}

/** How many turns the chat's transcript holds (deleted ones, shown as stubs, among them). */
export function transcriptLength(db: Db, chatId: string): number {
  return db.get<{ n: number }>('SELECT count(*) AS n FROM transcript WHERE chat_id = ?', [chatId])!.n;
}

/** The seq of the turn a place names: the nearest turn at or after it, else the story's last. */
function seqAt(db: Db, chatId: string, place: TranscriptPlace): number | null {
  const found =
    'index' in place
      ? db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? ORDER BY seq LIMIT 1 OFFSET ?', [chatId, place.index])
      : 'seq' in place
        ? db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND seq >= ? ORDER BY seq LIMIT 1', [chatId, place.seq])
        : 'sentAt' in place
          ? db.get<{ seq: number }>(
              `SELECT t.seq FROM transcript t JOIN events e ON e.seq = t.seq
               WHERE t.chat_id = ? AND coalesce(t.sent_at, e.ts) >= ? ORDER BY t.seq LIMIT 1`,
              [chatId, place.sentAt],
            )
          : // Story time lives on the scenes: the first turn of the first scene to open at or
            // after it; past them all, of the last scene; in a story with no scenes, its start.
            db.get<{ seq: number }>(
              `SELECT t.seq FROM transcript t
               WHERE t.chat_id = ?1 AND t.seq >= coalesce(
                 (SELECT opened_seq FROM scenes WHERE chat_id = ?1 AND opened_fiction_time >= ?2 ORDER BY opened_seq LIMIT 1),
                 (SELECT max(opened_seq) FROM scenes WHERE chat_id = ?1), 0)
               ORDER BY t.seq LIMIT 1`,
              [chatId, place.storyTime],
            );
  return (found ?? db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? ORDER BY seq DESC LIMIT 1', [chatId]))?.seq ?? null;
}

/**
 * A page opened at a place in the story, the turn asked for with a few before it for context and
 * the rest after, and the page's place among all the chat's turns.
 */
export function transcriptWindow(db: Db, chatId: string, place: TranscriptPlace, limit?: number): TranscriptWindow {
  const size = pageSize(limit);
  const targetSeq = seqAt(db, chatId, place);
  if (targetSeq === null) return { ...chatTranscript(db, chatId, { limit: size }), firstIndex: 0, targetSeq: null };
  // A quarter before it for context, the rest after; at either end of the story, the other side fills.
  let older = turnsBeside(db, chatId, 'before', targetSeq, Math.floor(size / 4));
  const newerLimit = size - Math.min(older.length, Math.floor(size / 4));
  const newer = turnsBeside(db, chatId, 'from', targetSeq, newerLimit);
  const olderLimit = size - Math.min(newer.length, newerLimit);
  if (olderLimit > Math.floor(size / 4)) older = turnsBeside(db, chatId, 'before', targetSeq, olderLimit);
  const page = pageOf(db, chatId, { older, olderLimit, newer, newerLimit });
  const firstIndex = db.get<{ n: number }>('SELECT count(*) AS n FROM transcript WHERE chat_id = ? AND seq < ?', [chatId, page.turns[0]!.seq])!.n;
  return { ...page, firstIndex, targetSeq };
}

/**
 * Which of these replies are forks: of the replies with versions at all (one indexed look each: the
 * planner, left to itself, walked every reply started by kind, 33 ms a page at 10,000 turns; `+e.id`
 * keeps the id's TEXT affinity off the indexed expression, which would otherwise not match it),
 * those with two versions that each carry turns written after them.
 */
function forksAmong(db: Db, startedSeqs: number[]): number[] {
  if (startedSeqs.length === 0) return [];
  const withVersions = db.all<{ seq: number; id: string }>(
    `SELECT e.seq, e.id FROM events e WHERE e.seq IN (SELECT value FROM json_each(?1))
       AND (json_extract(e.payload, '$.regenerateOf') IS NOT NULL
         OR EXISTS (SELECT 1 FROM event_rows r INDEXED BY events_by_regenerated
                   WHERE json_extract(payload_json(r.payload), '$.regenerateOf') = +e.id AND r.kind = 'assistant_turn_started'))`,
    [JSON.stringify(startedSeqs)],
  );
  return withVersions.filter((row) => replyVersions(db, row.id).filter((v) => hasContinuation(db, v.id)).length >= 2).map((row) => row.seq);
}

function versionsOf(db: Db, startedSeq: number): TranscriptTurn['versions'] {
  const version = versionOfReply(db, startedSeq);
  if (!version || version.of <= 1) return null;
  const elsewhere = db.get('SELECT 1 AS x FROM events WHERE seq = ? AND device_id <> (SELECT id FROM database_identity LIMIT 1)', [startedSeq]);
  return elsewhere ? { ...version, otherDevice: true } : version;
}

export const transcriptCalls = {
  /** A page of the chat's story, newest last; `beforeSeq` pages back. */
  transcript: defineQuery({
    args: z.tuple([
      id,
      z.object({ beforeSeq: seq.nullable().optional(), afterSeq: seq.nullable().optional(), limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional() }).optional(),
    ]),
    reads: ['transcript', 'chats', 'bots', 'you', 'visibility'],
    run: ({ db }, chatId, options) => chatTranscript(db, chatId, options),
  }),
  /** How many turns the chat holds: the virtual transcript's length. */
  transcriptLength: defineQuery({
    args: z.tuple([id]),
    reads: ['transcript'],
    run: ({ db }, chatId) => transcriptLength(db, chatId),
  }),
  /** A page opened at a place: "Jump to the start", "Jump to a date", a search hit's turn. */
  transcriptWindow: defineQuery({
    args: z.tuple([
      id,
      z.union([
        z.object({ index: z.number().int().nonnegative() }).strict(),
        z.object({ seq }).strict(),
        z.object({ sentAt: z.number().int() }).strict(),
        z.object({ storyTime: z.string().min(1).max(40) }).strict(),
      ]),
      z.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
    ]),
    // Asked once per jump, never kept live: the view pages on from it with `transcript`.
    run: ({ db }, chatId, place, limit) => transcriptWindow(db, chatId, place, limit),
  }),
};
