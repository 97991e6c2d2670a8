import type OpenAI from 'openai';
import { LlmError, type ChatMessage, type Completion, type LlmCallOptions, type LlmClient, type LlmErrorCode, type ModelInfo, type StreamPart } from './port.ts';
import { contextLengthOf, modelClassOf } from './model-info.ts';

export interface RelayClientOptions {
  /** The relay's API root, e.g. `${location.origin}/api/v1`. */
  baseURL: string;
  /**
   * The relay's token when it requires one (read on every call: the player may enter it while the
   * app runs); never the upstream key, which the relay alone holds.
   */
  token?: () => string | undefined;
  fetch?: typeof fetch;
}

const KNOWN_CODES = new Set<string>([
  'upstream_key_rejected',
  'upstream_busy',
  'too_many_streams',
  'queue_timeout',
  'upstream_error',
  'upstream_timeout',
  'upstream_unreachable',
  'upstream_no_response',
  'relay_unauthorized',
  'invalid_request',
  'model_not_allowed',
]);

type Sdk = typeof import('openai');

/**
 * Maps whatever the SDK threw to an LlmError. A mid-stream error has no status: use its code. Class
 * checks use the SDK's own classes, because names do not survive minification.
 */
export function toLlmError(error: unknown, sdk?: Sdk): LlmError {
  if (error instanceof LlmError) return error;
  const e = error as { name?: string; status?: number; code?: string | null; message?: string; error?: { code?: string } };
  if (e?.name === 'AbortError' || (sdk && error instanceof sdk.APIUserAbortError)) {
    return new LlmError('aborted', 'The request was cancelled.');
  }
  const code = e?.code ?? e?.error?.code ?? '';
  // The SDK prefixes the relay's sentence with the HTTP status; the UI wants the sentence.
  const message = (e?.message ?? '').replace(/^\d{3}\s+/, '');
  if (KNOWN_CODES.has(code)) return new LlmError(code as LlmErrorCode, message || code, e.status ?? null);
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new LlmError('relay_unreachable', 'Cannot reach the relay. Is it running, and are you online?');
  }
  if (typeof e?.status === 'number') {
    const byStatus: Record<number, LlmErrorCode> = { 401: 'relay_unauthorized', 429: 'upstream_busy', 400: 'invalid_request' };
    return new LlmError(byStatus[e.status] ?? (e.status >= 500 ? 'upstream_error' : 'unknown'), e.message ?? `HTTP ${e.status}`, e.status);
  }
  return new LlmError('unknown', e?.message ?? String(error));
}

/**
 * The production LlmClient: the openai SDK talking to the relay. The SDK is loaded on first use, so
 * it costs the app's start nothing. Retries belong to the relay's queue and to classify(), not here.
 */
export function createRelayClient(options: RelayClientOptions): LlmClient {
  let module: Sdk | undefined;
  let sdk: Promise<OpenAI> | undefined;
  let builtFor: string | undefined;
  const client = () => {
    const token = options.token?.() || 'relay-holds-the-key';
    if (builtFor !== token) sdk = undefined;
    builtFor = token;
    return (sdk ??= import('openai').then(
      (loaded) =>
        new (module = loaded).default({
          baseURL: options.baseURL,
          apiKey: token,
          dangerouslyAllowBrowser: true,
          maxRetries: 0,
          timeout: 10 * 60_000,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
    ));
  };

  const body = (messages: readonly ChatMessage[], o: LlmCallOptions) => ({
    model: o.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.topP !== undefined ? { top_p: o.topP } : {}),
    ...(o.minP !== undefined ? { min_p: o.minP } : {}),
    ...(o.repetitionPenalty !== undefined ? { repetition_penalty: o.repetitionPenalty } : {}),
    ...(o.stop?.length ? { stop: o.stop } : {}),
    ...(o.json ? { response_format: { type: 'json_object' as const } } : {}),
  });
  const requestOptions = (o: LlmCallOptions) => ({
    ...(o.signal ? { signal: o.signal } : {}),
    headers: { 'x-roleplay-priority': o.priority ?? 'narrator' },
  });

  return {
    async warm() {
      await client();
    },

    async complete(messages, o): Promise<Completion> {
      try {
        const reply = await (await client()).chat.completions.create({ ...body(messages, o), stream: false }, requestOptions(o));
        const choice = reply.choices[0];
        return {
          text: choice?.message.content ?? '',
          usage: reply.usage ? { promptTokens: reply.usage.prompt_tokens, completionTokens: reply.usage.completion_tokens } : null,
          model: reply.model || o.model,
          finishReason: choice?.finish_reason ?? null,
        };
      } catch (error) {
        throw toLlmError(error, module);
      }
    },

    async models() {
      try {
        const listed: ModelInfo[] = [];
        for await (const model of (await client()).models.list()) {
          const entry = model as unknown as Record<string, unknown>;
          listed.push({ id: model.id, contextLength: contextLengthOf(entry), modelClass: modelClassOf(entry) });
        }
        return listed;
      } catch (error) {
        throw toLlmError(error, module);
      }
    },

    async *stream(messages, o): AsyncIterable<StreamPart> {
      let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        stream = await (await client()).chat.completions.create(
          { ...body(messages, o), stream: true, stream_options: { include_usage: true } },
          requestOptions(o),
        );
      } catch (error) {
        if (o.signal?.aborted) return;
        throw toLlmError(error, module);
      }
      try {
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          // Thinking models send their reasoning beside the content: DeepSeek's and vLLM's as
          // `reasoning_content`, OpenRouter's and Ollama's as `reasoning`.
          const delta = choice?.delta as { content?: string | null; reasoning_content?: string | null; reasoning?: string | null } | undefined;
          const reasoning = delta?.reasoning_content ?? delta?.reasoning;
          if (typeof reasoning === 'string' && reasoning) yield { type: 'thinking', text: reasoning };
          if (delta?.content) yield { type: 'delta', text: delta.content };
          if (choice?.finish_reason) yield { type: 'finish', reason: choice.finish_reason };
          if (chunk.usage) {
            yield { type: 'usage', usage: { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens } };
          }
        }
      } catch (error) {
        if (o.signal?.aborted) return;
        throw toLlmError(error, module);
      }
    },
  };
}
