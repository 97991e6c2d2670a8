/** Counts tokens in a text. The engine is handed one, so tests and the worker share the same logic. */
export type TokenCounter = (text: string) => number;

/**
 * The narrator models (Mistral, Llama) use other tokenizers than cl100k: counts are estimates, so
 * they are padded. Budgets are then respected with room to spare rather than overrun.
 */
export const TOKENIZER_MARGIN = 1.1;

let counter: Promise<TokenCounter> | undefined;

/**
 * Tokens estimated from length, a little high: English runs near four characters a token, while
 * CJK scripts take about a token a character. What a text is measured with until it is counted.
 */
export const estimateTokens: TokenCounter = (text) => {
  const wide = text.match(/[\u2e80-\ud7ff\uf900-\uffdc]/g)?.length ?? 0;
  return Math.ceil(((text.length - wide) / 3 + wide * 2) * TOKENIZER_MARGIN);
};

/**
 * js-tiktoken's lite entry with the single cl100k ranks file, behind a dynamic import: the ranks
 * are large, and building the encoder takes most of a second, so it is built once, on first use.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/cl100k_base')]).then(([lite, ranks]) => {
    const encoder = new lite.Tiktoken(ranks.default);
    return remembered((text: string) => Math.ceil(encoder.encode(text).length * TOKENIZER_MARGIN));
  });
  return counter;
}

/**
 * The text cut to at most `max` tokens, keeping its start (or its end, for "what happened last"),
 * marked with an ellipsis where it was cut. Binary search over length: counting is the cost.
 */
export function fitToTokens(text: string, max: number, count: TokenCounter, keep: 'start' | 'end' = 'start'): string {
  if (max <= 0) return '';
  if (count(text) <= max) return text;
  let low = 0;
  let high = text.length;
  const cut = (length: number) => (keep === 'start' ? `${text.slice(0, length).trimEnd()}…` : `…${text.slice(text.length - length).trimStart()}`);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count(cut(mid)) <= max) low = mid;
    else high = mid - 1;
  }
  return low > 0 ? cut(low) : '';
}

/** Characters of text whose counts are kept: a few thousand turns, a few megabytes at most. */
const REMEMBERED_CHARS = 4_000_000;

/**
 * A counter that counts each text once. A turn's text never changes, and every prompt counts the
 * same history again: encoding it was most of a prompt's assembly. Bounded by the characters it
 * holds, and simply started afresh when full.
 */
export function remembered(count: TokenCounter): TokenCounter {
  const counts = boundedCounts();
  return (text) => {
    let tokens = counts.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      counts.set(text, tokens);
    }
    return tokens;
  };
}

/** Texts' token counts, held up to `REMEMBERED_CHARS` of text, then started afresh. */
function boundedCounts() {
  const counts = new Map<string, number>();
  let held = 0;
  return {
    get: (text: string) => counts.get(text),
    set(text: string, tokens: number) {
      if (held + text.length > REMEMBERED_CHARS) {
        counts.clear();
        held = 0;
      }
      counts.set(text, tokens);
      held += text.length;
    },
  };
}

/**
 * A counter that never waits: exact for texts counted already, estimated for the rest, each new
 * text handed once to `countLater` (another thread, where building the tokenizer and encoding
 * block nothing), whose answers `learn` keeps. A turn is counted exactly by the time it is history.
 */
export function countedAside(countLater: (text: string) => void): { count: TokenCounter; learn: (text: string, tokens: number) => void } {
  const counts = boundedCounts();
  // Texts sent and not yet answered; bounded too, should the helper never answer.
  let asked = new Set<string>();
  return {
    count(text) {
      const known = counts.get(text);
      if (known !== undefined) return known;
      if (!asked.has(text)) {
        if (asked.size >= 10_000) asked = new Set();
        asked.add(text);
        countLater(text);
      }
      return estimateTokens(text);
    },
    learn(text, tokens) {
      asked.delete(text);
      counts.set(text, tokens);
    },
  };
}
