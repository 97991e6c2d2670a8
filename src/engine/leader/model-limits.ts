import type { LlmClient } from '../llm/port.ts';

/**
 * The model's own limits (issue 35, part 4): how long a context each model takes, as its server's
 * model list says (Featherless's `context_length`, vLLM's `max_model_len`, llama.cpp's `n_ctx`),
 * asked once and kept a while. A server that says nothing, is slow to answer or fails leaves the
 * budget to Settings: a reply never waits long for it.
 */
export function createModelLimits(llm: LlmClient, now: () => number, options: { keepMs?: number; waitMs?: number } = {}) {
  const keepMs = options.keepMs ?? 10 * 60_000;
  const waitMs = options.waitMs ?? 2_000;
  let known: { at: number; contexts: Map<string, number> } | null = null;
  let asking: Promise<Map<string, number>> | null = null;
  const ask = async (): Promise<Map<string, number>> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the model list took too long')), waitMs)));
    const listed = await Promise.race([llm.models!(), late]).finally(() => clearTimeout(timer));
    return new Map(listed.flatMap((model) => (model.contextLength ? [[model.id, model.contextLength] as const] : [])));
  };
  return {
    /** The model's context length in tokens, or null when its server does not say. */
    async contextOf(model: string): Promise<number | null> {
      if (!llm.models) return null;
      if (!known || now() - known.at > keepMs) {
        asking ??= ask().finally(() => (asking = null));
        known = { at: now(), contexts: await asking.catch(() => new Map<string, number>()) };
      }
      return known.contexts.get(model) ?? null;
    },
  };
}

/**
 * The story's budget from a model's context: what the context holds less the reply's own tokens,
 * less a tenth, since counts are estimates for most families (part 3 counts with their own).
 */
export function budgetFromContext(context: number, replyTokens: number): { soft: number; hard: number } {
  const hard = Math.max(1_000, Math.min(128_000, Math.floor((context - replyTokens) * 0.9)));
  return { hard, soft: Math.max(500, Math.floor(hard * 0.75)) };
}
