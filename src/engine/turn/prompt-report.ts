import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { shortText, uuid } from '../events/fields.ts';
import type { Memory } from '../memory/memory-row.ts';
import type { ScoredMemory } from '../memory/retrieval.ts';
import type { AssembledPrompt, Budget } from './prompt.ts';
import { COUNTED_WITH, TOKENIZER_FAMILIES } from './tokenizer-family.ts';
import { defineQuery, id } from '../call.ts';

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
      }),
    )
    .max(600),
  memories: z
    .array(
      z.object({
        id: uuid,
        summary: z.string().max(4_000),
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

/** The report stored with a reply as it stands (its latest assistant_turn), or null for replies written before reports were kept. */
export function replyPrompt(db: Db, chatId: string, turnId: string): PromptReport | null {
  const row = db.get<{ prompt: string | null }>(
    `SELECT json_extract(e.payload, '$.prompt') AS prompt FROM transcript t JOIN events e ON e.seq = t.finished_seq
     WHERE t.turn_id = ? AND t.chat_id = ? AND t.role = 'assistant'`,
    [turnId, chatId],
  );
  return row?.prompt ? (JSON.parse(row.prompt) as PromptReport) : null;
}

export const promptReportCalls = {
  /** "Why this reply?": the prompt that produced it, by tier, with the memories and why they were chosen. */
  replyPrompt: defineQuery({ args: z.tuple([id, id]), run: ({ db }, chatId, turnId) => replyPrompt(db, chatId, turnId) }),
};
