import type { Db } from '../db/port.ts';
import { TURN_PERSONA_SQL } from '../authoring/personas.ts';
import { indexAllPendingTranscript } from './search-index.ts';
import { prefixOf, quotedTokens, withoutWordBreaks, wordsOf } from '../text/search-text.ts';
import { z } from 'zod';
import { defineQuery } from '../call.ts';

/** Marks around a matched word in a snippet: control characters no story text holds, split by the UI (never HTML). */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

export interface SearchHit {
  chatId: string;
  chatTitle: string;
  botName: string | null;
  turnId: string;
  /** The turn's seq: the chat page scrolls to it. */
  seq: number;
  speakerName: string;
  /** A stretch of the turn around the match, matched words between MATCH_START and MATCH_END. */
  snippet: string;
}

const RESULTS = 50;

/**
 * The player's words as an FTS5 query: every word must appear (in any form the stemmer relates:
 * "storms" finds "storm"; or, in another language, with another ending or particle: "ключи"
 * finds "ключ", "은열쇠는" finds "은열쇠를"), the last one also as the start of a longer word, as
 * typed so far. Words are found in any script (`wordsOf`: "银钥匙" is 银 and 钥匙). Quoting each
 * word keeps FTS5's own syntax (NEAR, AND, "-", ":") out of the player's input.
 */
export function ftsQuery(text: string): string | null {
  const words = wordsOf(text.normalize('NFKC').replace(/['’]/g, ' ')).slice(0, 12);
  if (!words.length) return null;
  return words
    .map((w, i) => {
      const prefix = prefixOf(w);
      const whole = quotedTokens(w, i === words.length - 1);
      return prefix ? `(${whole} OR ${quotedTokens(prefix, true)})` : whole;
    })
    .join(' ');
}

/**
 * Every chat's story searched at once: the best matches first, turns still shown only, no deleted
 * chat. Turns still waiting for the index are indexed first, so none is missed.
 */
export function searchChats(db: Db, text: string): SearchHit[] {
  const query = ftsQuery(text);
  if (!query) return [];
  indexAllPendingTranscript(db);
  return db
    .all<{ chat_id: string; title: string; bot_name: string | null; turn_id: string; seq: number; speaker_name: string | null; snippet: string }>(
      `SELECT t.chat_id, c.title, b.name AS bot_name, t.turn_id, t.seq,
         CASE WHEN t.speaker = 'you' THEN (SELECT name FROM you WHERE id = ${TURN_PERSONA_SQL}) ELSE (SELECT name FROM bots WHERE id = t.speaker) END AS speaker_name,
         snippet(transcript_fts, 0, ?2, ?3, '…', 16) AS snippet
       FROM transcript_fts f
       JOIN transcript t ON t.seq = f.rowid
       JOIN chats c ON c.id = t.chat_id
       LEFT JOIN bots b ON b.id = c.bot_id
       WHERE transcript_fts MATCH ?1 AND t.hidden = 0 AND t.status != 'streaming'
         AND c.deleted_ts IS NULL AND b.deleted_ts IS NULL
       ORDER BY f.rank, t.seq DESC
       LIMIT ${RESULTS}`,
      [query, MATCH_START, MATCH_END],
    )
    .map((r) => ({
      chatId: r.chat_id,
      chatTitle: r.title,
      botName: r.bot_name,
      turnId: r.turn_id,
      seq: r.seq,
      speakerName: r.speaker_name ?? 'Someone',
      // The index's word breaks (search-text.ts) are invisible, but not to copy and paste.
      snippet: withoutWordBreaks(r.snippet),
    }));
}

export const searchCalls = {
  /** Search across every chat's story; hits link to their turn. */
  searchChats: defineQuery({ args: z.tuple([z.string().max(500)]), reads: ['transcript', 'chats', 'bots', 'you'], run: ({ db }, text) => searchChats(db, text) }),
};
