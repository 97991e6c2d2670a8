/// <reference lib="webworker" />
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { loadTokenCounter } from '../engine/turn/tokens.ts';

logPolicyViolations();

/**
 * Counts tokens off the database worker's thread: building the cl100k encoder takes most of a
 * second, and a reply streaming behind it waited that long for its first token. Gets texts,
 * answers [text, tokens] pairs in the same order.
 */
const counter = loadTokenCounter();
self.onmessage = async (event: MessageEvent<string[]>) => {
  const count = await counter;
  self.postMessage(event.data.map((text) => [text, count(text)] as const));
};
