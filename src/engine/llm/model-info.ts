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
