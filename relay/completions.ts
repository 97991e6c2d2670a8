import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RelayConfig } from './config.ts';
import { demoReply, demoTokens, estimateTokens } from './demo-model.ts';
import { errorBody, RelayHttpError, sendJson } from './http-error.ts';
import type { Logger } from './logger.ts';
import { parseCompletionRequest, readJsonBody, type CompletionRequest } from './request-body.ts';
import type { Upstream } from './upstream.ts';
import type { Priority, UpstreamQueue } from './upstream-queue.ts';

export interface CompletionContext {
  config: RelayConfig;
  upstream: Upstream;
  queue: UpstreamQueue;
  log: Logger;
  /** Open streams per client, for RELAY_MAX_STREAMS. */
  openStreams: Map<string, number>;
  demoDelayMs: number;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

function priorityOf(req: IncomingMessage, body: CompletionRequest): Priority {
  const asked = req.headers['x-roleplay-priority'];
  if (asked === 'narrator' || asked === 'analysis') return asked;
  return body.stream ? 'narrator' : 'analysis';
}

/** Aborts when the browser goes away before the response has finished. */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

export async function handleCompletions(req: IncomingMessage, res: ServerResponse, ctx: CompletionContext, client: string) {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(contentType)) {
    // Also what forces a CORS preflight, so another site cannot spend the quota from your browser.
    throw new RelayHttpError(415, 'invalid_request', 'Send the request body as JSON with Content-Type: application/json.');
  }
  const body = parseCompletionRequest(await readJsonBody(req, ctx.config.maxBodyBytes));
  if (ctx.config.allowedModels.length > 0 && !ctx.config.allowedModels.includes(body.model)) {
    throw new RelayHttpError(403, 'model_not_allowed', `The relay does not allow the model "${body.model}". Allowed: ${ctx.config.allowedModels.join(', ')}.`);
  }
  const streaming = body.stream === true;
  if (streaming) {
    const open = ctx.openStreams.get(client) ?? 0;
    if (open >= ctx.config.maxStreamsPerClient) {
      throw new RelayHttpError(
        429,
        'too_many_streams',
        `This client already has ${open} replies streaming (the relay allows ${ctx.config.maxStreamsPerClient}). Wait for one to finish.`,
        { 'Retry-After': '2' },
      );
    }
    ctx.openStreams.set(client, open + 1);
  }
  const signal = clientGone(res);
  try {
    if (!ctx.config.apiKey) {
      await answerFromDemo(res, body, ctx.demoDelayMs, signal);
      return;
    }
    const release = await ctx.queue.acquire(await ctx.upstream.costOf(body.model), priorityOf(req, body), signal);
    try {
      await forward(res, body, ctx, signal);
    } finally {
      release();
    }
  } finally {
    if (streaming) {
      const left = (ctx.openStreams.get(client) ?? 1) - 1;
      if (left > 0) ctx.openStreams.set(client, left);
      else ctx.openStreams.delete(client);
    }
  }
}

/** A 200 whose body is an error (Featherless's occasional `no_response`): a failure, retried once. */
function isErrorBody(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'error' in value && !('choices' in value);
}

async function forward(res: ServerResponse, body: CompletionRequest, ctx: CompletionContext, signal: AbortSignal) {
  const payload = JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    const response = await ctx.upstream.request('/chat/completions', {
      method: 'POST',
      body: payload,
      accept: body.stream ? 'text/event-stream' : 'application/json',
      signal,
    });
    if (!response.ok) throw await ctx.upstream.failure(response);
    const done = body.stream ? await pipeStream(res, response, ctx, signal) : await sendWhole(res, response);
    if (done) return;
    if (attempt >= 2) {
      throw new RelayHttpError(502, 'upstream_no_response', 'The model server answered twice without a reply. Try again.');
    }
    ctx.log.info('upstream answered 200 with an error body; retrying once');
  }
}

/** Returns false (send nothing) when the body is an error, so the caller can retry. */
async function sendWhole(res: ServerResponse, response: Response): Promise<boolean> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || isErrorBody(parsed)) return false;
  sendJson(res, 200, parsed);
  return true;
}

/**
 * Passes the upstream's SSE bytes through as they arrive. The first event is held back until it is
 * complete: if it is an error (or the stream is empty), nothing has been sent and the caller retries.
 */
async function pipeStream(res: ServerResponse, response: Response, ctx: CompletionContext, signal: AbortSignal): Promise<boolean> {
  if (!response.body) return false;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const held: Uint8Array[] = [];
  let head = '';
  let idle: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => void reader.cancel(new Error('idle')).catch(() => {}), ctx.config.upstreamTimeoutMs);
  };
  const onAbort = () => void reader.cancel(new Error('client gone')).catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    armIdle();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      held.push(value);
      head += decoder.decode(value, { stream: true });
      if (/\n\n|\r\n\r\n/.test(head)) break;
    }
    const first = /data:\s*(.*)/.exec(head)?.[1]?.trim();
    let firstEvent: unknown;
    try {
      firstEvent = first && first !== '[DONE]' ? JSON.parse(first) : undefined;
    } catch {
      firstEvent = undefined;
    }
    if (firstEvent === undefined || isErrorBody(firstEvent)) {
      await reader.cancel().catch(() => {});
      return false;
    }
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    for (const chunk of held) res.write(chunk);
    for (;;) {
      armIdle();
      const { value, done } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
    return true;
  } catch (error) {
    if (signal.aborted) return true;
    const reason = error instanceof Error ? error.message : String(error);
    ctx.log.error(`upstream stream failed: ${reason}`);
    if (!res.headersSent) throw new RelayHttpError(502, 'upstream_error', `The model server's stream broke: ${reason}`);
    // Mid-stream: the SDK turns an error event into an APIError, so the UI can truncate and offer Retry.
    res.end(`data: ${JSON.stringify(errorBody('upstream_error', `The model server's stream broke: ${reason}`))}\n\n`);
    return true;
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', onAbort);
  }
}

async function answerFromDemo(res: ServerResponse, body: CompletionRequest, delayMs: number, signal: AbortSignal) {
  const text = demoReply(body);
  const promptTokens = estimateTokens(body.messages.map((m) => m.content).join('\n'));
  const usage = { prompt_tokens: promptTokens, completion_tokens: estimateTokens(text), total_tokens: promptTokens + estimateTokens(text) };
  const id = `chatcmpl-demo-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  if (!body.stream) {
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    });
    return;
  }
  const event = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  const tokens = demoTokens(text);
  for (const [i, token] of tokens.entries()) {
    if (signal.aborted) return;
    res.write(event([{ index: 0, delta: i === 0 ? { role: 'assistant', content: token } : { content: token }, finish_reason: null }]));
    if (delayMs > 0) await sleep(delayMs, undefined, { signal }).catch(() => {});
  }
  if (signal.aborted) return;
  res.write(event([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  if (body.stream_options?.include_usage) res.write(event([], { usage }));
  res.end('data: [DONE]\n\n');
}
