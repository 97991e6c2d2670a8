/** Counts tokens in a text. The engine is handed one, so tests and the worker share the same logic. */
export type TokenCounter = (text: string) => number;

/**
 * The narrator models (Mistral, Llama) use other tokenizers than cl100k: counts are estimates, so
 * they are padded. Budgets are then respected with room to spare rather than overrun.
 */
export const TOKENIZER_MARGIN = 1.1;

let counter: Promise<TokenCounter> | undefined;

/**
 * js-tiktoken's lite entry with the single cl100k ranks file, behind a dynamic import: the ranks
 * are large, and building the encoder takes most of a second, so it is built once, on first use.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/cl100k_base')]).then(([lite, ranks]) => {
    const encoder = new lite.Tiktoken(ranks.default);
    return (text: string) => Math.ceil(encoder.encode(text).length * TOKENIZER_MARGIN);
  });
  return counter;
}
