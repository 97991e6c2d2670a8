import type { z } from 'zod';
import type { Db } from '../db/port.ts';
import type { ClassifyOptions, ClassifyResult } from '../llm/classify.ts';
import type { LogContext } from '../log/context.ts';
import type { Settings } from '../settings/settings.ts';
import type { TokenCounter } from '../turn/tokens.ts';
import { recordSceneSummary, sceneSummaryPrompt, sceneSummarySchema, sceneToSummarize } from './scene-summary.ts';
import { analysisPrompt, analysisSchema, FALLBACK_ANALYSIS, knownFacts, normalizeAnalysis, recordAnalysis, turnToAnalyze } from './turn-analysis.ts';
import { z as zod } from 'zod';
import { defineQuery, id } from '../call.ts';

/**
 * Background work after a reply: its analysis, and each witness's summary of a scene it closed.
 * Jobs are not stored anywhere: they are read off the projections (a reply without analyzed_seq, a
 * closed scene without a summary row), so a new leader finds exactly what the old one left undone.
 */
export type AnalysisJob =
  | { type: 'turn'; chatId: string; seq: number; key: string }
  | { type: 'scene'; chatId: string; seq: number; sceneId: string; ownerId: string; key: string };

/**
 * Only a chat's newest replies are analysed: in play the backlog is one or two, and a story that
 * arrives without analysis (a backup from before it existed, thousands of turns) must not spend
 * hours of the user's quota on its past. Its older replies simply stay unanalysed.
 */
export const ANALYSIS_WINDOW = 3;

/**
 * The same for scenes: only a chat's last few closed scenes can wait for their summaries. Every
 * Send and the chat's "updating memories" marker look for them, and a walk of every closed scene's
 * memories grew with the story (48,000 steps a Send at 600 turns).
 */
export const SCENE_WINDOW = 3;

interface ReplyRow {
  finished_seq: number | null;
  analyzed_seq: number | null;
  status: string;
  model: string | null;
  text: string;
  reason: string | null;
  device: string | null;
}

/**
 * Every unfinished job, or one chat's, oldest first. Only for replies and scene closes written on
 * this device (`deviceId`): with sync, another device's reply arrives unanalysed until that
 * device's own analysis follows it, and analysing it here too would count its feelings twice.
 */
export function pendingJobs(db: Db, deviceId: string, chatId?: string): AnalysisJob[] {
  const params = chatId === undefined ? [] : [chatId];
  const chats =
    chatId !== undefined
      ? [chatId]
      : // Only a chat's last few replies can wait (ANALYSIS_WINDOW), so each chat's are read from its
        // end: an index of the replies waiting cost two pages of every Send, one as a reply began
        // and one as its analysis landed.
        db
          .all<{ chat_id: string }>(
            `SELECT c.id AS chat_id FROM chats c WHERE EXISTS (SELECT 1 FROM (
               SELECT t.analyzed_seq FROM transcript t WHERE t.chat_id = c.id AND t.role = 'assistant' ORDER BY t.seq DESC LIMIT ${ANALYSIS_WINDOW}
             ) WHERE analyzed_seq IS NULL)`,
          )
          .map((r) => r.chat_id);
  const turns = chats.flatMap((chat) =>
    db
      .all<ReplyRow>(
        `SELECT finished_seq, analyzed_seq, status, model, text, reason, (SELECT device_id FROM events WHERE seq = t.finished_seq) AS device
         FROM transcript t WHERE chat_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT ${ANALYSIS_WINDOW}`,
        [chat],
      )
      // A reply cut off by an error is not what the model meant to say: it waits for Retry, unanalysed.
      .filter((r) => r.analyzed_seq === null && r.finished_seq !== null && r.device === deviceId && r.status !== 'streaming' && r.model !== 'kickoff' && r.text !== '' && r.reason !== 'error')
      .map((r): AnalysisJob => ({ type: 'turn', chatId: chat, seq: r.finished_seq!, key: `turn:${r.finished_seq}` })),
  );
  const scenes = db
    .all<{ chat_id: string; closed_seq: number; id: string; owner_id: string }>(
      `SELECT DISTINCT sc.chat_id, sc.closed_seq, sc.id, m.owner_id
       FROM ${chatId === undefined ? 'chats c' : '(SELECT ? AS id) c'}
         JOIN scenes sc ON sc.rowid IN (SELECT rowid FROM scenes WHERE chat_id = c.id AND closed_seq IS NOT NULL ORDER BY opened_seq DESC LIMIT ${SCENE_WINDOW})
         JOIN memories m ON m.scene_key = id_key(sc.id) AND m.chat_id = sc.chat_id
       WHERE (SELECT device_id FROM events WHERE seq = sc.closed_seq) = ?
         AND NOT EXISTS (SELECT 1 FROM scene_summaries s WHERE s.chat_id = sc.chat_id AND s.scene_id = sc.id AND s.owner_id = m.owner_id)`,
      [...params, deviceId],
    )
    .map((r): AnalysisJob => ({ type: 'scene', chatId: r.chat_id, seq: r.closed_seq, sceneId: r.id, ownerId: r.owner_id, key: `scene:${r.id}:${r.owner_id}` }));
  return [...turns, ...scenes].sort((a, b) => a.seq - b.seq || a.key.localeCompare(b.key));
}

export interface JobDeps {
  ctx: LogContext;
  settings: () => Settings;
  classify<S extends z.ZodType>(
    schema: S,
    prompt: { system: string; user: string },
    options: ClassifyOptions<z.infer<S>> & { chatId: string },
  ): Promise<ClassifyResult<z.infer<S>>>;
}

const ANALYSIS_MAX_TOKENS = 700;

/**
 * Runs one job: the classifier call, then its events in one transaction that first checks the job
 * is still undone. A failed classifier means defaults (the failure is logged by classify); an
 * aborted run (the leader is going away) writes nothing and is picked up by the next leader.
 * Returns whether this run wrote the job's result.
 */
export async function runJob(deps: JobDeps, job: AnalysisJob, count: TokenCounter, signal?: AbortSignal): Promise<boolean> {
  const { db } = deps.ctx;
  const settings = deps.settings();
  const options = { chatId: job.chatId, maxTokens: ANALYSIS_MAX_TOKENS, ...(signal ? { signal } : {}) };
  if (job.type === 'turn') {
    const turn = turnToAnalyze(db, job.chatId, job.seq);
    if (!turn) return false;
    const schema = analysisSchema(turn.pairs.map((p) => p.key), turn.fields.length > 0);
    const result = await deps.classify(schema, analysisPrompt(db, turn, settings, count), { ...options, task: 'analysis', fallback: FALLBACK_ANALYSIS });
    if (signal?.aborted) return false;
    const analysis = normalizeAnalysis(result.value, turn, knownFacts(db, job.chatId));
    return recordAnalysis(deps.ctx, job.chatId, job.seq, analysis, { ok: result.ok, model: result.model });
  }
  const scene = sceneToSummarize(db, job.chatId, job.sceneId, job.ownerId);
  if (!scene) return false;
  const schema = sceneSummarySchema(scene.others.map((o) => o.key));
  // An empty summary is the fallback: recorded as a failed summary, the turn memories stay.
  const result = await deps.classify(schema, sceneSummaryPrompt(scene, settings, count), { ...options, task: 'scene summary', fallback: { summary: '', views: {} } });
  if (signal?.aborted) return false;
  return recordSceneSummary(deps.ctx, job.chatId, job.sceneId, job.ownerId, result.ok ? result.value : null);
}

export const analysisCalls = {
  /** Background work still to do for this chat: the quiet "updating memories" marker. */
  analysisStatus: defineQuery({
    args: zod.tuple([id]),
    reads: ['transcript', 'scenes', 'memories', 'scene_summaries'],
    run: (ctx, chatId) => ({ pending: pendingJobs(ctx.db, ctx.deviceId(), chatId).length }),
  }),
};
