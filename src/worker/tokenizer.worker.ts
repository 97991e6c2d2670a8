/// <reference lib="webworker" />
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { familyOrCl100k, type Counting } from '../engine/turn/family-tokenizer.ts';
import type { TokenizerFamily } from '../engine/turn/tokenizer-family.ts';
import { fetchTokenizerFiles } from './tokenizer-files.ts';
import type { CountAsked, CountAnswered } from './token-helper.ts';

logPolicyViolations();

/**
 * Counts tokens off the database worker's thread: building a tokenizer takes from most of a second
 * (cl100k) to a second and a half (Gemma 3's), and a reply streaming behind it waited that long for
 * its first token. Each family's tokenizer is built on its first text; one that cannot load (its
 * file unreachable, say) counts with cl100k and its margin, and says so in its answers.
 */
const counters = new Map<TokenizerFamily | 'cl100k', Promise<Counting>>();

function counterFor(source: TokenizerFamily | 'cl100k'): Promise<Counting> {
  let counter = counters.get(source);
  if (!counter) {
    // A family's tokenizer holds 60–130 MB once built: only the model in use keeps one (and cl100k).
    for (const held of counters.keys()) if (held !== 'cl100k') counters.delete(held);
    counter = familyOrCl100k(source, fetchTokenizerFiles, (error) => console.warn(`The ${source} tokenizer could not load; counting with cl100k and its margin.`, error));
    counters.set(source, counter);
  }
  return counter;
}

self.onmessage = async (event: MessageEvent<CountAsked>) => {
  const { source, texts } = event.data;
  const { count, countedWith } = await counterFor(source);
  const answer: CountAnswered = { source, countedWith, counts: texts.map((text) => [text, count(text)]) };
  self.postMessage(answer);
};
