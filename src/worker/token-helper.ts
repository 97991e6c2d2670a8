import { countedAside, type TokenCounter } from '../engine/turn/tokens.ts';

/**
 * The leader's token counter: answers at once (exact once a text has been counted, estimated
 * before), while a helper worker counts each new text exactly. Texts are sent in batches, one per
 * turn of the event loop.
 */
export function helperTokenCounter(): TokenCounter {
  const helper = new Worker(new URL('./tokenizer.worker.ts', import.meta.url), { type: 'module', name: 'tokenizer' });
  let batch: string[] = [];
  const aside = countedAside((text) => {
    if (batch.length === 0) setTimeout(() => {
      helper.postMessage(batch);
      batch = [];
    }, 0);
    batch.push(text);
  });
  helper.onmessage = (event: MessageEvent<[string, number][]>) => {
    for (const [text, tokens] of event.data) aside.learn(text, tokens);
  };
  return aside.count;
}
