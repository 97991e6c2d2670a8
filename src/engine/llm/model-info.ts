/**
 * A model's context length from its server's model list entry (issue 35, part 4), under whichever
 * name the server uses: Featherless's `context_length`, vLLM's `max_model_len`, llama.cpp's
 * `meta.n_ctx` (the relay reads it from llama.cpp's /props). Never llama.cpp's `n_ctx_train`: that
 * is what the model was trained to, not what the server gives it (`-c`), and sizing from it overflows.
 */
export function contextLengthOf(entry: Record<string, unknown>): number | null {
  const meta = (typeof entry.meta === 'object' && entry.meta !== null ? entry.meta : {}) as Record<string, unknown>;
  for (const value of [entry.context_length, entry.max_context_length, entry.context_window, entry.max_model_len, meta.n_ctx]) {
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return null;
}

/** The model's class where its server names one (Featherless's `model_class`), for its tokenizer. */
export function modelClassOf(entry: Record<string, unknown>): string | null {
  const value = entry.model_class;
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null;
}
