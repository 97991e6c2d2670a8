import type { z } from 'zod';
import { defineQuery, none } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import type { LogContext } from '../log/context.ts';
import { readSettings } from '../settings/settings.ts';
import { classify, type ClassifyOptions, type ClassifyResult } from './classify.ts';
import type { LlmClient } from './port.ts';

/**
 * Structured output with the classifier model the settings name, and their fallbacks; each model
 * that gives up becomes a classifier_failed event, visible in Settings.
 */
export function classifyLogged<S extends z.ZodType>(
  ctx: LogContext,
  llm: LlmClient,
  schema: S,
  prompt: { system: string; user: string },
  options: ClassifyOptions<z.infer<S>> & { chatId?: string | null },
): Promise<ClassifyResult<z.infer<S>>> {
  const settings = readSettings(ctx.db);
  return classify(
    {
      llm,
      model: settings.classifierModel,
      fallbacks: settings.classifierFallbacks,
      timeoutMs: settings.classifierTimeoutMs,
      recordFailure: (failure) => appendEvents(ctx, [{ kind: 'classifier_failed', chatId: options.chatId ?? null, payload: failure }]),
    },
    schema,
    prompt,
    options,
  );
}

export const classifierCalls = {
  /** The classifier's recent failures, with what the model answered (Settings). */
  classifierFailures: defineQuery({
    args: none,
    reads: ['classifier_failures'],
    run: ({ db }) =>
      db.all<{ seq: number; chat_id: string | null; ts: number; task: string; model: string; raw: string; error: string; attempts: number }>(
        'SELECT seq, chat_id, ts, task, model, raw, error, attempts FROM classifier_failures ORDER BY seq DESC LIMIT 100',
      ),
  }),
};
