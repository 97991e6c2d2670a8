import type { Engine } from '../../src/engine/engine.ts';
import { createLeader, type Change, type LeaderDeps, type LeaderEvent } from '../../src/engine/leader/leader.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import type { TokenizerFamily } from '../../src/engine/turn/tokenizer-family.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { nodeTokens } from './family-tokenizers.ts';

/**
 * The leader core exactly as the worker runs it, over a test engine, with everything it tells the
 * tabs recorded. `now` defaults to the wall clock.
 */
export function testLeader(engine: Engine, llm: LlmClient, options: { now?: () => number; sync?: LeaderDeps['sync']; familyTokenizers?: boolean } = {}) {
  const events: LeaderEvent[] = [];
  const leader = createLeader({
    engine,
    llm,
    // Each family's own tokenizer where a test asks (they take up to 1.5 s to build); cl100k else.
    ...(options.familyTokenizers
      ? { tokens: nodeTokens, countedWith: (family: TokenizerFamily | null) => family ?? 'cl100k' }
      : { tokens: () => loadTokenCounter(), countedWith: () => 'cl100k' as const }),
    now: options.now ?? Date.now,
    emit: (event) => events.push(event),
    report: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
    ...(options.sync ? { sync: options.sync } : {}),
  });
  const changes = (): Change[] => events.flatMap((e) => (e.type === 'changed' ? [e.change] : []));
  return { leader, client: leader.client, events, changes };
}

/** An analysis answer that changes nothing, for tests about something else. */
export const QUIET_ANALYSIS = JSON.stringify({ minutesPassed: 1, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {} });

/** The client with its structured calls (analysis) answered quietly, so a script feeds only the narrator. */
export function narratorOnly(llm: LlmClient): LlmClient {
  return {
    stream: (messages, options) => llm.stream(messages, options),
    complete: async (_messages, options) => ({ text: QUIET_ANALYSIS, usage: null, model: options.model, finishReason: 'stop' }),
    ...(llm.models ? { models: () => llm.models!() } : {}),
  };
}
