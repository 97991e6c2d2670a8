import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { chatTranscript } from '../queries/transcript.ts';
import { defineQuery, id } from '../call.ts';
import { keptText, type PromptReport, type StoryRun } from './prompt-report.ts';
import { historyLabel, historyText } from './history-turn.ts';

type ReportPart = PromptReport['parts'][number];

/** The report stored with a reply as it stands (its latest assistant_turn), or null for replies written before reports were kept. */
export function replyPrompt(db: Db, chatId: string, turnId: string): PromptReport | null {
  const row = db.get<{ prompt: string | null }>(
    `SELECT json_extract(e.payload, '$.prompt') AS prompt FROM transcript t JOIN events e ON e.seq = t.finished_seq
     WHERE t.turn_key = id_key(?) AND t.chat_id = ? AND t.role = 'assistant'`,
    [turnId, chatId],
  );
  if (!row?.prompt) return null;
  const stored = JSON.parse(row.prompt) as PromptReport;
  return {
    ...stored,
    parts: stored.parts.flatMap((part) => (part.story ? storyParts(db, chatId, part.story) : [withText(db, chatId, part)])),
    memories: stored.memories.map((memory) => (memory.summaryHash && memory.summary === null ? { ...memory, summary: keptText(db, chatId, memory.summaryHash)?.text ?? null } : memory)),
  };
}

/** A part whose words the chat keeps apart, with them put back. */
function withText(db: Db, chatId: string, part: ReportPart): ReportPart {
  if (!part.textHash || part.text !== null) return part;
  const kept = keptText(db, chatId, part.textHash);
  return kept ? { ...part, text: kept.text } : part;
}

/**
 * A stored run of story turns as one part per turn, named from the transcript as the narrator
 * named them. Turns since hidden or taken away leave the run's count unmatched: each is then named
 * by its place in the run, with its cost as it was.
 */
function storyParts(db: Db, chatId: string, run: StoryRun): ReportPart[] {
  const seqOf = (turnId: string) => db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [chatId, turnId])?.seq;
  const [from, to] = [seqOf(run.from), seqOf(run.to)];
  const told =
    from === undefined || to === undefined
      ? []
      : chatTranscript(db, chatId, { afterSeq: from - 1, limit: run.tokens.length * 2 + 10 })
          .turns.filter((t) => t.seq <= to && t.status !== 'streaming' && !t.hidden)
          .map((turn) => ({ turn, text: historyText(turn) }))
          .filter((h) => h.text.trim() !== '');
  const named = told.length === run.tokens.length;
  const dropped = new Set(run.dropped);
  return run.tokens.map((tokens, index): ReportPart => ({
    label: named ? historyLabel(told[index]!.turn.speakerName, told[index]!.text) : `story turn ${index + 1} of ${run.tokens.length}`,
    tier: run.tiers[index] === 'n' ? 'nice' : 'should',
    tokens,
    kept: !dropped.has(index),
    text: null,
    ...(named ? { turnId: told[index]!.turn.turnId } : {}),
  }));
}

export const promptReportCalls = {
  /** "Why this reply?": the prompt that produced it, by tier, with the memories and why they were chosen. */
  replyPrompt: defineQuery({ args: z.tuple([id, id]), run: ({ db }, chatId, turnId) => replyPrompt(db, chatId, turnId) }),
};
