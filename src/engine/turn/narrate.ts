import { LlmError, type ChatMessage, type LlmClient, type Usage } from '../llm/port.ts';
import { createThinkingSplitter } from '../llm/thinking-stream.ts';
import { createReplyCutter } from './reply-cut.ts';

export interface NarrationResult {
  text: string;
  usage: Usage | null;
  truncated: boolean;
  reason: 'stopped' | 'error' | 'length' | null;
  error: { code: string; message: string } | null;
  /** A thinking model's thinking, apart from the reply; `ms` from its first word to the reply's (null while it never ended). */
  thinking?: { text: string; ms: number | null } | null;
  /** Where the reply was cut because it ran on ("\nAda:"), and the label taken off its start ("Mira:"). */
  stoppedAt?: string | null;
  trimmedLabel?: string | null;
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
  /**
   * Thinking as it arrives: a delta, or (`moved`) the reply so far, which a lone closing tag showed
   * was thinking all along. Optional: callers that show no thinking need not listen.
   */
  onThinking?(delta: string, moved: boolean): void;
  /** The reply began after thinking that took `ms`. */
  onThinkingEnd?(ms: number): void;
  /** Called about every `checkpointMs` with the text (and thinking) so far, so a crash loses at most that much. */
  onCheckpoint(textSoFar: string, thinkingSoFar: string): void;
  checkpointMs: number;
  now: () => number;
  /** The reply ends at the first of these (the player's and the others' names at a line's start). */
  stopAt?: readonly string[];
  /** Names a reply may start with as a label ("Mira:"), taken off. */
  labels?: readonly string[];
}

/**
 * Streams one reply. Stop (the signal) and relay errors end it early with what was written so far:
 * a reply is never lost, only marked truncated with its reason.
 */
export async function narrate(options: NarrateOptions): Promise<NarrationResult> {
  let text = '';
  let thinking = '';
  let thoughtFrom: number | null = null;
  let thoughtUntil: number | null = null;
  let usage: Usage | null = null;
  let finish: string | null = null;
  let lastCheckpoint = options.now();
  const splitter = createThinkingSplitter();
  const cutter = createReplyCutter({ stopAt: options.stopAt ?? [], labels: options.labels ?? [] });
  // A reply cut at a stop string ends its call: the model stops writing what nobody will read.
  const cutShort = new AbortController();
  let stoppedAt: string | null = null;
  let trimmedLabel: string | null = null;
  const think = (delta: string) => {
    if (!delta) return;
    thoughtFrom ??= options.now();
    thinking += delta;
    options.onThinking?.(delta, false);
  };
  const say = (delta: string, final = false) => {
    const cut = final ? cutter.end() : cutter.push(delta);
    if (cut.trimmedLabel) trimmedLabel = cut.trimmedLabel;
    if (cut.stoppedAt) {
      stoppedAt = cut.stoppedAt;
      cutShort.abort();
    }
    // The reply after a thinking block starts at its first word, not the block's blank lines.
    const words = text === '' && thinking !== '' ? cut.out.trimStart() : cut.out;
    if (!words) return;
    if (thinking !== '' && thoughtUntil === null) {
      thoughtUntil = options.now();
      options.onThinkingEnd?.(Math.max(0, thoughtUntil - (thoughtFrom ?? thoughtUntil)));
    }
    text += words;
    options.onDelta(words, text);
  };
  const take = (piece: { reply: string; thinking: string; replyWasThinking?: true }) => {
    if (piece.replyWasThinking) {
      // A closing tag with no opening one: what showed as the reply was thinking.
      thoughtFrom ??= options.now();
      thinking = thinking + text;
      options.onThinking?.(text, true);
      text = '';
    }
    think(piece.thinking);
    say(piece.reply);
  };
  try {
    for await (const part of options.llm.stream(options.messages, {
      model: options.model,
      maxTokens: options.maxTokens,
      signal: AbortSignal.any([options.signal, cutShort.signal]),
      priority: 'narrator',
      temperature: options.sampling.temperature,
      topP: options.sampling.topP,
      minP: options.sampling.minP,
      repetitionPenalty: options.sampling.repetitionPenalty,
    })) {
      if (part.type === 'delta' || part.type === 'thinking') {
        if (part.type === 'delta') take(splitter.push(part.text));
        else think(part.text);
        if (options.now() - lastCheckpoint >= options.checkpointMs) {
          lastCheckpoint = options.now();
          options.onCheckpoint(text, thinking);
        }
      } else if (part.type === 'usage') {
        usage = part.usage;
      } else {
        finish = part.reason;
      }
    }
    take(splitter.end());
    say('', true);
  } catch (error) {
    take(splitter.end());
    say('', true);
    const failure = error instanceof LlmError ? error : new LlmError('unknown', error instanceof Error ? error.message : String(error));
    if (failure.code !== 'aborted' && !options.signal.aborted && !cutShort.signal.aborted) {
      return { text, usage, truncated: true, reason: 'error', error: { code: failure.code, message: failure.message }, thinking: thought() };
    }
  }
  const cutInfo = { stoppedAt, trimmedLabel };
  // A space shown before the stop string came is not part of the reply.
  if (stoppedAt) text = text.trimEnd();
  if (options.signal.aborted) return { text, usage, truncated: true, reason: 'stopped', error: null, thinking: thought(), ...cutInfo };
  if (finish === 'length' && !stoppedAt) return { text, usage, truncated: true, reason: 'length', error: null, thinking: thought(), ...cutInfo };
  return { text, usage, truncated: false, reason: null, error: null, thinking: thought(), ...cutInfo };

  function thought(): NarrationResult['thinking'] {
    if (!thinking.trim()) return null;
    return { text: thinking.trim(), ms: thoughtFrom !== null && thoughtUntil !== null ? Math.max(0, thoughtUntil - thoughtFrom) : null };
  }
}
