import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { shortText, uuid } from '../events/fields.ts';
import type { Memory } from '../memory/memory-row.ts';
import type { ScoredMemory } from '../memory/retrieval.ts';
import type { AssembledPrompt, Budget } from './prompt.ts';
import { COUNTED_WITH, TOKENIZER_FAMILIES } from './tokenizer-family.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { VISIBLE } from '../log/visibility.ts';
import { chatRef } from '../log/row.ts';
import { MAX_DELTA_DEPTH, promptTextHash } from '../events/prompt-texts.ts';
import { deltaOf, textFromDelta, type TextDelta } from './text-delta.ts';

/**
 * The story turns a prompt told, as the log keeps them: the first and last by id, and each one's
 * tokens, tier ('s' should, 'n' nice) and whether it fit. Their names come from the transcript when
 * the report is read. Kept whole, a report named every turn of its window with its opening words:
 * ~130 bytes a turn, 20 KB a reply at a 6,000-token budget, most of what a long story stored.
 */
const storyRun = z.object({
  from: uuid,
  to: uuid,
  tiers: z.string().regex(/^[sn]*$/).max(10_000),
  tokens: z.array(z.number().int().min(0)).max(10_000),
  dropped: z.array(z.number().int().min(0)).max(10_000),
});
export type StoryRun = z.infer<typeof storyRun>;

/**
 * "Why did it say that": the prompt that produced a reply, kept with the reply (in its
 * assistant_turn event) so it is exact for old replies too. Each part by tier with its tokens and
 * whether it fit; system parts with their text (the story turns are in the transcript already);
 * every memory that went in, and for a recalled one why it ranked where it did.
 */
export const promptReport = z.object({
  budget: z.object({ soft: z.number().int().min(0), hard: z.number().int().min(0) }),
  tokens: z.number().int().min(0),
  parts: z
    .array(
      z.object({
        label: shortText(120),
        tier: z.enum(['must', 'should', 'nice']),
        tokens: z.number().int().min(0),
        kept: z.boolean(),
        text: z.string().max(40_000).nullable(),
        /** Where the words are when the chat keeps them apart (`prompt_text_kept`); text is null then. */
        textHash: promptTextHash.optional(),
        /** The story turn this part told (not stored: the log keeps a run of them as one `story` part). */
        turnId: uuid.optional(),
        /** As stored, a run of story turns in one part: see `storyRun`. Read back as one part per turn. */
        story: storyRun.optional(),
      }),
    )
    .max(600),
  memories: z
    .array(
      z.object({
        id: uuid,
        /** Null where the chat keeps the words apart (`summaryHash`, as a part's `textHash`). */
        summary: z.string().max(4_000).nullable(),
        summaryHash: promptTextHash.optional(),
        pinned: z.boolean(),
        significance: z.number().int().min(0).max(3),
        score: z.number().nullable(),
        relevance: z.number().nullable(),
        recency: z.number().nullable(),
        matched: z.array(z.string().max(80)).max(40),
      }),
    )
    .max(80),
  /** The reply ran on and was cut at this stop string ("\nAda:"); said in "Why this reply?". */
  stoppedAt: z.string().max(200).optional(),
  /** The label taken off the reply's start ("Mira:"). */
  trimmedLabel: z.string().max(200).optional(),
  /** The model's context length, when the budget was sized from it. */
  contextLength: z.number().int().min(1).optional(),
  /** What counted the prompt's tokens: the model family's tokenizer, cl100k with a margin, or lengths while it loaded. */
  countedWith: z.enum(COUNTED_WITH).optional(),
  /** The family whose tokenizer was meant to count (null: none ships for the model), for "while it loaded". */
  tokenizerFamily: z.enum(TOKENIZER_FAMILIES).nullable().optional(),
});
export type PromptReport = z.infer<typeof promptReport>;

const round = (n: number) => Math.round(n * 1000) / 1000;

export function reportOf(assembled: AssembledPrompt, budget: Budget, pinned: readonly Memory[], recalled: readonly ScoredMemory[]): PromptReport {
  return {
    budget: { soft: budget.soft, hard: budget.hard },
    tokens: assembled.tokens,
    // Story turns are in the transcript already; what else went in is shown with its words.
    parts: assembled.parts.map((p) => ({
      label: p.label.slice(0, 120),
      tier: p.tier,
      tokens: p.tokens,
      kept: p.kept,
      text: p.slot === 'system' || p.label === "director's note" ? p.text.slice(0, 40_000) : null,
      ...(p.turnId ? { turnId: p.turnId } : {}),
    })),
    memories: [
      ...pinned.map((m) => ({ id: m.id, summary: m.summary.slice(0, 4_000), pinned: true, significance: m.significance, score: null, relevance: null, recency: null, matched: [] })),
      ...recalled.map((m) => ({
        id: m.id,
        summary: m.summary.slice(0, 4_000),
        pinned: false,
        significance: m.significance,
        score: round(m.score),
        relevance: round(m.why.relevance),
        recency: round(m.why.recency),
        matched: m.why.matched.slice(0, 40),
      })),
    ],
  };
}

/** Shorter texts stay in the report: an event of their own would cost more than they do. */
const KEPT_APART_FROM = 240;
/**
 * A memory's words are kept apart from this long: a memory is recalled by reply after reply, and
 * each report carried its words again (half of a played story's report, 400 exchanges in).
 */
const MEMORY_KEPT_APART_FROM = 80;

/** The name a text is kept by (`promptTextHash`), the same on every device. */
const hashOf = (text: string): string => bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32);

/**
 * A chat's kept texts by hash (chat id, hash), as `e`: the partial index `events_by_prompt_text`
 * (migrations 0047, 0058) answers, named, so SQLite refuses the statement rather than read without
 * it. Through the view `events` SQLite chose the index by chat, as a tie, and read every event of a
 * long chat for each long part of a prompt. The kind term and the expression must read exactly so.
 */
export const KEPT_TEXT_ROWS = `event_rows e INDEXED BY events_by_prompt_text
  WHERE e.kind = 'prompt_text_kept' AND e.chat = ${chatRef('?')} AND json_extract(payload_json(e.payload), '$.hash') = ?`;

/** A `prompt_text_kept` payload: the words, or what they share with a text kept before them. */
export type KeptText = { hash: string; text: string } | { hash: string; base: string; depth: number; delta: TextDelta };

/**
 * A text the chat keeps by its hash, and how many bases back its words are whole (0: these are),
 * visible or not: a reply shows the words it was given even if a later rewind hid their event.
 * Null when no event holds it, or its slices do not give back the text the hash names.
 */
export function keptText(db: Db, chatId: string, hash: string, reach = MAX_DELTA_DEPTH): { text: string; depth: number } | null {
  for (const { payload } of db.all<{ payload: string }>(`SELECT payload_json(e.payload) AS payload FROM ${KEPT_TEXT_ROWS}`, [chatId, hash])) {
    const kept = JSON.parse(payload) as KeptText;
    if ('text' in kept) return { text: kept.text, depth: 0 };
    const base = reach > 0 ? keptText(db, chatId, kept.base, reach - 1) : null;
    const text = base && textFromDelta(base.text, kept.delta);
    if (text !== null && text !== undefined && hashOf(text) === hash) return { text, depth: kept.depth };
  }
  return null;
}

/** Whether an event the story still shows keeps the text (one a rewind hid is kept again when needed). */
const keptInView = (db: Db, chatId: string, hash: string): boolean => db.get(`SELECT 1 AS x FROM ${KEPT_TEXT_ROWS} AND ${VISIBLE('e')}`, [chatId, hash]) !== undefined;

/**
 * The texts the chat's latest reply was told apart from its report, by part label: the next
 * reply's texts are kept as what they share with these.
 */
function lastReplyTexts(db: Db, chatId: string): Map<string, string> {
  const row = db.get<{ parts: string | null }>(
    `SELECT json_extract(payload_json(e.payload), '$.prompt.parts') AS parts
     FROM transcript_rows r JOIN event_rows e ON e.seq = r.finished_seq
     WHERE r.chat = ${chatRef('?')} AND r.role = 'assistant' AND r.status <> 'streaming' ORDER BY r.seq DESC LIMIT 1`,
    [chatId],
  );
  const parts = row?.parts ? (JSON.parse(row.parts) as { label: string; textHash?: string }[]) : [];
  return new Map(parts.flatMap((part) => (part.textHash ? [[part.label, part.textHash] as const] : [])));
}

/**
 * What to log for a text: as slices of `baseHash`'s words when that text is kept, in view, fewer
 * than MAX_DELTA_DEPTH bases from whole words, and the slices take at most three quarters of the
 * words' room.
 * A base in view came before this text in the chat, so whatever holds this text (a branch's copy,
 * the story after a rewind) holds its base too.
 */
function keptForTheLog(db: Db, chatId: string, hash: string, text: string, baseHash: string | undefined): KeptText {
  if (!baseHash || baseHash === hash || !keptInView(db, chatId, baseHash)) return { hash, text };
  const base = keptText(db, chatId, baseHash);
  if (!base || base.depth + 1 > MAX_DELTA_DEPTH) return { hash, text };
  const delta = deltaOf(base.text, text);
  return JSON.stringify(delta).length * 4 <= text.length * 3 ? { hash, base: baseHash, depth: base.depth + 1, delta } : { hash, text };
}

/**
 * The report as a reply's event keeps it, and the texts to log before it (`prompt_text_kept`):
 * each long part's words, and each memory's, are logged once per chat (a text a rewind took away
 * is logged again), a part's as what they share with the same part's words in the reply before
 * where that is much smaller, and the report names them by hash; the story turns are one `story`
 * part.
 */
export function reportForTheLog(db: Db, chatId: string, report: PromptReport): { report: PromptReport; texts: KeptText[] } {
  const texts: KeptText[] = [];
  const logged = new Set<string>();
  /** The text's hash, its words logged first unless this report or an event in view has them. */
  const keptApart = (text: string, toLog: (hash: string) => KeptText): string => {
    const hash = hashOf(text);
    if (!logged.has(hash) && !keptInView(db, chatId, hash)) texts.push(toLog(hash));
    logged.add(hash);
    return hash;
  };
  let before: Map<string, string> | undefined;
  const parts = storyRuns(report.parts).map((part) => {
    if (part.text === null || part.text.length < KEPT_APART_FROM) return part;
    const text = part.text;
    const textHash = keptApart(text, (hash) => keptForTheLog(db, chatId, hash, text, (before ??= lastReplyTexts(db, chatId)).get(part.label)));
    return { ...part, text: null, textHash };
  });
  const memories = report.memories.map((memory) => {
    if (memory.summary === null || memory.summary.length < MEMORY_KEPT_APART_FROM) return memory;
    const text = memory.summary;
    return { ...memory, summary: null, summaryHash: keptApart(text, (hash) => ({ hash, text })) };
  });
  return { report: { ...report, parts, memories }, texts };
}

type ReportPart = PromptReport['parts'][number];

/** Each run of consecutive story-turn parts as one `story` part, where it stood. */
function storyRuns(parts: readonly ReportPart[]): ReportPart[] {
  const out: ReportPart[] = [];
  for (let i = 0; i < parts.length; ) {
    const first = parts[i]!;
    if (!first.turnId) {
      out.push(first);
      i++;
      continue;
    }
    const run: ReportPart[] = [];
    while (i < parts.length && parts[i]!.turnId) run.push(parts[i++]!);
    out.push({
      label: 'story',
      tier: run.some((p) => p.tier === 'should') ? 'should' : 'nice',
      tokens: run.reduce((sum, p) => sum + p.tokens, 0),
      kept: run.some((p) => p.kept),
      text: null,
      story: {
        from: run[0]!.turnId!,
        to: run.at(-1)!.turnId!,
        tiers: run.map((p) => (p.tier === 'nice' ? 'n' : 's')).join(''),
        tokens: run.map((p) => p.tokens),
        dropped: run.flatMap((p, index) => (p.kept ? [] : [index])),
      },
    });
  }
  return out;
}
