import type { ChatMessage, Completion, LlmCallOptions, LlmClient, StreamPart } from '../../src/engine/llm/port.ts';

/** One scripted answer: text, an error to throw, 'hang' (until aborted), or a function of the call. */
export type Script = string | Error | 'hang' | ((messages: readonly ChatMessage[], options: LlmCallOptions) => string);

export interface ScriptedCall {
  messages: readonly ChatMessage[];
  options: LlmCallOptions;
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal?.aborted) fail();
    signal?.addEventListener('abort', fail, { once: true });
  });
}

/** An LlmClient that answers from a script and records every call, for engine tests. */
export function scriptedLlm(...script: Script[]) {
  const calls: ScriptedCall[] = [];
  const next = async (messages: readonly ChatMessage[], options: LlmCallOptions): Promise<string> => {
    calls.push({ messages, options });
    const step = script.shift();
    if (step === undefined) throw new Error('scripted LLM: no answer left for this call');
    if (step instanceof Error) throw step;
    if (step === 'hang') return hang(options.signal);
    return typeof step === 'function' ? step(messages, options) : step;
  };
  const client: LlmClient = {
    async complete(messages, options): Promise<Completion> {
      const text = await next(messages, options);
      return { text, usage: { promptTokens: 10, completionTokens: text.length }, model: options.model, finishReason: 'stop' };
    },
    async *stream(messages, options): AsyncIterable<StreamPart> {
      const text = await next(messages, options);
      for (const piece of text.match(/\S+\s*/g) ?? []) {
        if (options.signal?.aborted) return;
        yield { type: 'delta', text: piece };
      }
      yield { type: 'finish', reason: 'stop' };
      yield { type: 'usage', usage: { promptTokens: 10, completionTokens: text.length } };
    },
  };
  return { client, calls, remaining: () => script.length };
}
