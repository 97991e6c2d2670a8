import type { CountedWith, TokenizerFamily } from './tokenizer-family.ts';
import { loadTokenCounter, remembered, type TokenCounter } from './tokens.ts';

/** A family's `tokenizer.json` and `tokenizer_config.json`, as its @lenml/tokenizer-* package ships them. */
export interface TokenizerFiles {
  tokenizer: unknown;
  config: unknown;
}

/**
 * A counter with a family's own tokenizer (Hugging Face's tokenizers, ported by @lenml): exact for
 * the model, so no margin. The text alone is counted, as cl100k's counter does: the chat template's
 * framing is the prompt's `MESSAGE_OVERHEAD`. Building it parses a tokenizer of 7–33 MB, so it is
 * built once, in the tokenizer worker, and the library is loaded only then.
 */
export async function familyCounter(files: TokenizerFiles): Promise<TokenCounter> {
  const { TokenizerLoader } = await import('@lenml/tokenizers');
  const tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: files.tokenizer as never, tokenizerConfig: files.config as never });
  return remembered((text) => tokenizer.encode(text, { add_special_tokens: false }).length);
}

/** What the tokenizer worker counts with for a family: its own tokenizer, or cl100k where that failed. */
export interface Counting {
  count: TokenCounter;
  countedWith: CountedWith;
}

/**
 * The counter for a family, from its files; cl100k with its margin where they cannot be had (a file
 * unreachable offline, or damaged), and `countedWith` says so: the prompt inspector never names a
 * tokenizer that did not count.
 */
export async function familyOrCl100k(source: TokenizerFamily | 'cl100k', files: (family: TokenizerFamily) => Promise<TokenizerFiles>, onFailure: (error: unknown) => void): Promise<Counting> {
  const cl100k = async (): Promise<Counting> => ({ count: await loadTokenCounter(), countedWith: 'cl100k' });
  if (source === 'cl100k') return cl100k();
  try {
    return { count: await familyCounter(await files(source)), countedWith: source };
  } catch (error) {
    onFailure(error);
    return cl100k();
  }
}
