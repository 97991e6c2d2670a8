import { LlmError, type ChatMessage, type LlmClient, type Usage } from '../llm/port.ts';

export interface NarrationResult {
  text: string;
  usage: Usage | null;
  truncated: boolean;
  reason: 'stopped' | 'error' | 'length' | null;
  error: { code: string; message: string } | null;
}

export interface NarrateOptions {
  llm: LlmClient;
  messages: ChatMessage[];
  model: string;
  maxTokens: number;
  /** The chat's sampling (its own knobs over the global ones). */
  sampling: { temperature: number; topP: number; minP: number; repetitionPenalty: number };
  signal: AbortSignal;
  /** Every text delta, in order, as it arrives. */
  onDelta(delta: string, textSoFar: string): void;
  /** Called about every `checkpointMs` with the text so far, so a crash loses at most that much. */
  onCheckpoint(textSoFar: string): void;
  checkpointMs: number;
  now: () => number;
}

/**
 * Streams one reply. Stop (the signal) and relay errors end it early with what was written so far:
 * a reply is never lost, only marked truncated with its reason.
 */
export async function narrate(options: NarrateOptions): Promise<NarrationResult> {
  let text = '';
  let usage: Usage | null = null;
  let finish: string | null = null;
  let lastCheckpoint = options.now();
  try {
    for await (const part of options.llm.stream(options.messages, {
      model: options.model,
      maxTokens: options.maxTokens,
      signal: options.signal,
      priority: 'narrator',
      temperature: options.sampling.temperature,
      topP: options.sampling.topP,
      minP: options.sampling.minP,
      repetitionPenalty: options.sampling.repetitionPenalty,
    })) {
      if (part.type === 'delta') {
        text += part.text;
        options.onDelta(part.text, text);
        if (options.now() - lastCheckpoint >= options.checkpointMs) {
          lastCheckpoint = options.now();
          options.onCheckpoint(text);
        }
      } else if (part.type === 'usage') {
        usage = part.usage;
      } else {
        finish = part.reason;
      }
    }
  } catch (error) {
    const failure = error instanceof LlmError ? error : new LlmError('unknown', error instanceof Error ? error.message : String(error));
    if (failure.code !== 'aborted' && !options.signal.aborted) {
      return { text, usage, truncated: true, reason: 'error', error: { code: failure.code, message: failure.message } };
    }
  }
  if (options.signal.aborted) return { text, usage, truncated: true, reason: 'stopped', error: null };
  if (finish === 'length') return { text, usage, truncated: true, reason: 'length', error: null };
  return { text, usage, truncated: false, reason: null, error: null };
}
