/**
 * A model's context length from its server's model list entry (issue 35, part 4), under whichever
 * name the server uses: Featherless's `context_length`, vLLM's `max_model_len`, llama.cpp's
 * `meta.n_ctx` (or the length it was trained to, `n_ctx_train`).
 */
export function contextLengthOf(entry: Record<string, unknown>): number | null {
  const meta = (typeof entry.meta === 'object' && entry.meta !== null ? entry.meta : {}) as Record<string, unknown>;
  for (const value of [entry.context_length, entry.max_context_length, entry.context_window, entry.max_model_len, meta.n_ctx, meta.n_ctx_train]) {
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return null;
}

/** The model's class where its server names one (Featherless's `model_class`), for its tokenizer. */
export function modelClassOf(entry: Record<string, unknown>): string | null {
  const value = entry.model_class;
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null;
}
