import type { CountedWith, TokenizerFamily } from '../engine/turn/tokenizer-family.ts';
import { countedAside, type TokenCounter } from '../engine/turn/tokens.ts';

/** A batch of texts for the helper to count with a family's tokenizer (or cl100k). */
export interface CountAsked {
  source: TokenizerFamily | 'cl100k';
  texts: string[];
}

/** The helper's counts, and what it counted with (cl100k where the family's tokenizer could not load). */
export interface CountAnswered {
  source: TokenizerFamily | 'cl100k';
  countedWith: CountedWith;
  counts: [string, number][];
}

/**
 * The leader's token counters, one per tokenizer: each answers at once (exact once a text has been
 * counted, estimated from its length before), while a helper worker counts each new text with the
 * family's tokenizer. Texts are sent in batches, one per turn of the event loop and tokenizer.
 */
export function tokenHelper(): { counterFor(source: TokenizerFamily | 'cl100k'): { count: TokenCounter; countedWith(): CountedWith } } {
  const helper = new Worker(new URL('./tokenizer.worker.ts', import.meta.url), { type: 'module', name: 'tokenizer' });
  const counters = new Map<CountAsked['source'], { aside: ReturnType<typeof countedAside>; countedWith: CountedWith }>();
  const batches = new Map<CountAsked['source'], string[]>();
  const ask = (source: CountAsked['source'], text: string) => {
    const waiting = batches.get(source);
    if (waiting) {
      waiting.push(text);
      return;
    }
    const batch = [text];
    batches.set(source, batch);
    setTimeout(() => {
      batches.delete(source);
      helper.postMessage({ source, texts: batch } satisfies CountAsked);
    }, 0);
  };
  const counterOf = (source: CountAsked['source']) => {
    let counter = counters.get(source);
    if (!counter) {
      counter = { aside: countedAside((text) => ask(source, text)), countedWith: 'estimate' };
      counters.set(source, counter);
    }
    return counter;
  };
  helper.onmessage = (event: MessageEvent<CountAnswered>) => {
    const counter = counterOf(event.data.source);
    counter.countedWith = event.data.countedWith;
    for (const [text, tokens] of event.data.counts) counter.aside.learn(text, tokens);
  };
  return {
    counterFor(source) {
      const counter = counterOf(source);
      return { count: counter.aside.count, countedWith: () => counter.countedWith };
    },
  };
}
