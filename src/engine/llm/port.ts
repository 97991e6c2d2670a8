/**
 * The LLM port. The engine talks to models only through this interface; the production adapter is
 * the openai SDK pointed at the relay, tests use a scripted client or the real relay.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface LlmCallOptions {
  model: string;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** Sent as `min_p` and `repetition_penalty`, which Featherless and llama.cpp read; others ignore them. */
  minP?: number;
  repetitionPenalty?: number;
  stop?: string[];
  signal?: AbortSignal;
  /** Narrator calls jump the relay's queue ahead of analysis calls. */
  priority?: 'narrator' | 'analysis';
  /** Ask for a JSON object. Never trusted: the answer is validated all the same. */
  json?: boolean;
}

export interface Completion {
  text: string;
  usage: Usage | null;
  model: string;
  finishReason: string | null;
}

export type StreamPart =
  | { type: 'delta'; text: string }
  /** A thinking model's reasoning sent beside the content (`reasoning_content`, `reasoning`). */
  | { type: 'thinking'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string | null };

/** A model as its server lists it: how long a context it takes, and its class, when the server says. */
export interface ModelInfo {
  id: string;
  contextLength: number | null;
  /** Featherless's `model_class` ("llama33-70b-16k"): the base a finetune's name may not tell. */
  modelClass?: string | null;
}

export interface LlmClient {
  complete(messages: readonly ChatMessage[], options: LlmCallOptions): Promise<Completion>;
  /** The server's models, for their limits; absent where there is no list to ask. */
  models?(): Promise<ModelInfo[]>;
  /** Yields text deltas as they arrive; ends early, without throwing, when `signal` aborts. */
  stream(messages: readonly ChatMessage[], options: LlmCallOptions): AsyncIterable<StreamPart>;
  /** Gets ready for a first call (loads and builds what it needs) without making one. */
  warm?(): Promise<void>;
}

/** What went wrong, in terms the UI can act on: `code` picks the banner, `retryable` shows Retry. */
export type LlmErrorCode =
  | 'upstream_key_rejected'
  | 'upstream_busy'
  | 'too_many_streams'
  | 'queue_timeout'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_unreachable'
  | 'upstream_no_response'
  | 'relay_unauthorized'
  | 'relay_unreachable'
  | 'invalid_request'
  | 'model_not_allowed'
  | 'aborted'
  | 'unknown';

export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  get retryable(): boolean {
    return !['relay_unauthorized', 'upstream_key_rejected', 'invalid_request', 'model_not_allowed'].includes(this.code);
  }
}
