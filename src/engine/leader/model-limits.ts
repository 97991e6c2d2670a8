import type { LlmClient, ModelInfo } from '../llm/port.ts';
import { tokenizerFamilyOf, type TokenizerFamily } from '../turn/tokenizer-family.ts';

/**
 * The model's own limits (issue 35, part 4): how long a context each model takes, as its server's
 * model list says (Featherless's `context_length`, vLLM's `max_model_len`, llama.cpp's `n_ctx`),
 * asked once and kept a while. A server that says nothing, is slow to answer or fails leaves the
 * budget to Settings: a reply never waits long for it.
 */
export function createModelLimits(llm: LlmClient, now: () => number, options: { keepMs?: number; waitMs?: number } = {}) {
  const keepMs = options.keepMs ?? 10 * 60_000;
  const waitMs = options.waitMs ?? 2_000;
  let known: { at: number; models: Map<string, ModelInfo> } | null = null;
  let asking: Promise<Map<string, ModelInfo>> | null = null;
  const ask = async (): Promise<Map<string, ModelInfo>> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the model list took too long')), waitMs)));
    const listed = await Promise.race([llm.models!(), late]).finally(() => clearTimeout(timer));
    return new Map(listed.map((model) => [model.id, model] as const));
  };
  const infoOf = async (model: string): Promise<ModelInfo | null> => {
    if (!llm.models) return null;
    if (!known || now() - known.at > keepMs) {
      asking ??= ask().finally(() => (asking = null));
      known = { at: now(), models: await asking.catch(() => new Map<string, ModelInfo>()) };
    }
    return known.models.get(model) ?? null;
  };
  return {
    /** The model's context length in tokens, or null when its server does not say. */
    contextOf: async (model: string): Promise<number | null> => (await infoOf(model))?.contextLength ?? null,
    /** The family whose tokenizer counts the model's prompts, from its id and its listed class. */
    familyOf: async (model: string): Promise<TokenizerFamily | null> => tokenizerFamilyOf(model, (await infoOf(model))?.modelClass),
  };
}

/**
 * The story's budget from a model's context: what the context holds less the reply's own tokens,
 * less a margin. A tenth where the counts are estimates (cl100k for another family's model, or
 * lengths while its tokenizer loads); a twentieth where the family's own tokenizer counted, for the
 * chat template's framing, which is estimated per message (bench: `npm run bench -- tokenizers`).
 */
export function budgetFromContext(context: number, replyTokens: number, exact = false): { soft: number; hard: number } {
  const hard = Math.max(1_000, Math.min(128_000, Math.floor((context - replyTokens) * (exact ? 0.95 : 0.9))));
  return { hard, soft: Math.max(500, Math.floor(hard * 0.75)) };
}
