import type { Db } from '../db/port.ts';
import { TURN_PERSONA_SQL } from '../authoring/personas.ts';
import { replyVersions, versionOfReply } from '../log/visibility.ts';
import { hasContinuation } from '../turn/followed-reply.ts';
import { hostResetSeq } from './chats.ts';
import { rewoundStretches, type RewoundStretch } from '../rewind/commands.ts';
import type { Segment } from '../events/turns.ts';
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
  /** Rewinds in force between this page's turns: the "N turns rewound — Restore" stubs, by seq. */
  rewinds: RewoundStretch[];
  /** Pass as `beforeSeq` to load the page before this one; null when this page reaches the start. */
  olderCursor: number | null;
}

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

/**
 * One page of a chat's transcript, newest last. Superseded and hidden turns are not in the
 * transcript table at all, so they never show. Keyed by seq on an index, so a chat of 10,000 turns
 * costs what a new one does.
 */
export function chatTranscript(
  db: Db,
  chatId: string,
  options: { beforeSeq?: number | null; limit?: number } = {},
): TranscriptPage {
  const limit = Math.max(1, Math.min(500, options.limit ?? DEFAULT_PAGE_SIZE));
  const rows = db.all<TurnRow>(
    `SELECT t.turn_id, t.seq, t.role, t.speaker, t.text, t.segments, t.status, t.reason, t.model,
       t.prompt_tokens, t.completion_tokens, t.error, t.thinking, t.thinking_ms, t.edited, t.hidden,
       CASE WHEN t.speaker = 'you' THEN (SELECT name FROM you WHERE id = ${TURN_PERSONA_SQL})
            ELSE (SELECT name FROM bots WHERE id = t.speaker) END AS speaker_name,
       CASE WHEN t.speaker = 'you' THEN (SELECT avatar FROM you WHERE id = ${TURN_PERSONA_SQL})
            ELSE (SELECT avatar FROM bots WHERE id = t.speaker) END AS speaker_avatar
     FROM transcript t
     WHERE t.chat_id = ? AND t.seq < ?
     ORDER BY t.seq DESC LIMIT ?`,
    [chatId, options.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit + 1],
  );
  const hasOlder = rows.length > limit;
  const page = rows.slice(0, limit).reverse();
  const result = {
    turns: page.map((r) => ({
      turnId: r.turn_id,
      seq: r.seq,
      role: r.role,
      speaker: r.speaker,
      speakerName: r.speaker_name ?? (r.speaker === 'you' ? 'You' : 'Unknown'),
      speakerAvatar: r.speaker_avatar ?? null,
      text: r.text,
      segments: r.segments === null ? null : (JSON.parse(r.segments) as Segment[]),
      status: r.status,
      reason: r.reason,
      model: r.model,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      error: r.error === null ? null : (JSON.parse(r.error) as { code: string; message: string }),
      thinking: r.thinking === null ? null : { text: r.thinking, ms: r.thinking_ms },
      edited: r.edited === 1,
      hidden: r.hidden === 1,
      versions: null as TranscriptTurn['versions'],
    })),
    olderCursor: hasOlder ? (page[0]?.seq ?? null) : null,
    rewinds: [] as RewoundStretch[],
    resetSeq: hostResetSeq(db, chatId) || null,
  };
  result.rewinds = rewoundStretches(db, chatId, hasOlder ? (page[0]?.seq ?? 0) : 0, options.beforeSeq ?? Number.MAX_SAFE_INTEGER);
  const newest = result.turns.at(-1);
  // A reply from before the bot's reset is history: no versions to flip (the commands refuse too).
  if (newest?.role === 'assistant' && options.beforeSeq == null && newest.seq > (result.resetSeq ?? 0)) newest.versions = versionsOf(db, newest.seq);
  for (const seq of forksAmong(db, result.turns.filter((t) => t.role === 'assistant' && t !== newest && t.seq > (result.resetSeq ?? 0)).map((t) => t.seq))) {
    const turn = result.turns.find((t) => t.seq === seq)!;
    const version = versionsOf(db, seq);
    if (version) turn.versions = { ...version, fork: true };
  }
  return result;
}

/**
 * Which of these replies are forks: of the replies with versions at all (one indexed look each),
 * those with two versions that each carry turns written after them.
 */
function forksAmong(db: Db, startedSeqs: number[]): number[] {
  if (startedSeqs.length === 0) return [];
  const withVersions = db.all<{ seq: number; id: string }>(
    `SELECT e.seq, e.id FROM events e WHERE e.seq IN (SELECT value FROM json_each(?1))
       AND (json_extract(e.payload, '$.regenerateOf') IS NOT NULL
         OR EXISTS (SELECT 1 FROM events r WHERE json_extract(r.payload, '$.regenerateOf') = e.id AND r.kind = 'assistant_turn_started'))`,
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
    args: z.tuple([id, z.object({ beforeSeq: seq.nullable().optional(), limit: z.number().int().min(1).max(500).optional() }).optional()]),
    reads: ['transcript', 'chats', 'bots', 'you', 'visibility'],
    run: ({ db }, chatId, options) => chatTranscript(db, chatId, options),
  }),
};
