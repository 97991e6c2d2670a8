import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RelayConfig } from './config.ts';
import { demoReply, demoTokens, estimateTokens } from './demo-model.ts';
import { errorBody, RelayHttpError, sendJson } from './http-error.ts';
import type { Logger } from './logger.ts';
import { parseCompletionRequest, readJsonBody, type CompletionRequest } from './request-body.ts';
import type { Upstream } from './upstream.ts';
import { readBounded, stalled, tooLarge } from './upstream-body.ts';
import { dataOf, sseRedactor } from './sse-redact.ts';
import type { Priority, UpstreamQueue } from './upstream-queue.ts';

export interface CompletionContext {
  config: RelayConfig;
  upstream: Upstream;
  queue: UpstreamQueue;
  log: Logger;
  /** Open streams per client, for RELAY_MAX_STREAMS. */
  openStreams: Map<string, number>;
  demoDelayMs: number;
  /** The key and the relay token, redacted from everything the upstream sends back. */
  secrets: readonly string[];
  scrub: (text: string) => string;
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
  const body = parseCompletionRequest(await readJsonBody(req, ctx.config.maxBodyBytes, ctx.config.bodyTimeoutMs));
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
    if (!ctx.config.apiKey && !ctx.config.keyless) {
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
    const done = body.stream ? await pipeStream(res, response, ctx, signal) : await sendWhole(res, response, ctx, signal);
    if (done) return;
    if (attempt >= 2) {
      throw new RelayHttpError(502, 'upstream_no_response', 'The model server answered twice without a reply. Try again.');
    }
    ctx.log.info('upstream answered 200 with an error body; retrying once');
  }
}

/** Returns false (send nothing) when the body is an error, so the caller can retry. */
async function sendWhole(res: ServerResponse, response: Response, ctx: CompletionContext, signal: AbortSignal): Promise<boolean> {
  const text = ctx.scrub(await readBounded(response, { maxBytes: ctx.config.maxEventBytes, idleMs: ctx.config.upstreamTimeoutMs, what: 'a reply', signal }));
  if (signal.aborted) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || isErrorBody(parsed)) return false;
  // Redacted again as the client will read it, decoded: an escaped key is whole once parsed.
  sendJson(res, 200, JSON.parse(ctx.scrub(JSON.stringify(parsed))));
  return true;
}



/**
 * Passes the upstream's SSE through event by event as it arrives, with the key redacted as the
 * client reads it (`sse-redact.ts`): even split across pieces or events, or escaped. The first data event is held back until it is complete: if it is an error (or the
 * stream ends first), nothing has been sent and the caller retries. Comments before it are fine.
 * No event may grow past the relay's limit, and the upstream may not go quiet for longer than its
 * timeout: either ends the stream with an error event the app records as a truncated reply.
 */
async function pipeStream(res: ServerResponse, response: Response, ctx: CompletionContext, signal: AbortSignal): Promise<boolean> {
  if (!response.body) return false;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const redact = sseRedactor(ctx.secrets, ctx.scrub);
  const limit = ctx.config.maxEventBytes;
  let failure: RelayHttpError | undefined;
  let idle: NodeJS.Timeout | undefined;
  const stop = (error: RelayHttpError | undefined) => {
    failure ??= error;
    void reader.cancel().catch(() => {});
  };
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => stop(stalled(ctx.config.upstreamTimeoutMs)), ctx.config.upstreamTimeoutMs);
  };
  const onAbort = () => stop(undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  /** The next piece of text, or undefined at the end; throws what stopped the stream. */
  const next = async (): Promise<string | undefined> => {
    armIdle();
    const { value, done } = await reader.read();
    if (failure) throw failure;
    return done ? undefined : decoder.decode(value, { stream: true });
  };
  try {
    // Until the first data event is complete: everything read so far, and where the event being read starts.
    let held = '';
    let eventStart = 0;
    let firstData: string | undefined;
    while (firstData === undefined) {
      const piece = await next();
      if (piece === undefined) break;
      const boundary = /\r?\n\r?\n/g;
      // Only the new text is searched (and the three characters before it, for an end split across pieces).
      boundary.lastIndex = Math.max(eventStart, held.length - 3);
      held += piece;
      for (let match = boundary.exec(held); match && firstData === undefined; match = boundary.exec(held)) {
        firstData = dataOf(held.slice(eventStart, match.index));
        eventStart = match.index + match[0].length;
      }
      if (firstData === undefined && held.length - eventStart > limit) throw tooLarge('an event', limit);
    }
    if (signal.aborted) return true;
    let firstEvent: unknown;
    try {
      firstEvent = firstData && firstData !== '[DONE]' ? JSON.parse(firstData) : undefined;
    } catch {
      firstEvent = undefined;
    }
    if (firstEvent === undefined || isErrorBody(firstEvent)) {
      stop(undefined);
      return false;
    }
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    res.write(redact.push(held));
    let sinceEventEnd = held.length - eventStart;
    let tail = held.slice(-3);
    try {
      for (let piece = await next(); piece !== undefined; piece = await next()) {
        const ends = [...(tail + piece).matchAll(/\r?\n\r?\n/g)];
        const last = ends.at(-1);
        sinceEventEnd = last ? tail.length + piece.length - (last.index + last[0].length) : sinceEventEnd + piece.length;
        if (sinceEventEnd > limit) throw tooLarge('an event', limit);
        tail = (tail + piece).slice(-3);
        res.write(redact.push(piece));
      }
      res.write(redact.end());
      res.end();
    } catch (error) {
      if (signal.aborted) return true;
      const problem = error instanceof RelayHttpError ? error : new RelayHttpError(502, 'upstream_error', `The model server's stream broke: ${error instanceof Error ? error.message : String(error)}`);
      ctx.log.error(`upstream stream ended early: ${problem.message}`);
      // Mid-stream: the SDK turns an error event into an APIError, so the app keeps what came as a
      // truncated reply and offers Retry. The blank line first ends any event cut off midway.
      res.end(`${redact.end()}\n\ndata: ${JSON.stringify(errorBody(problem.code, problem.message))}\n\n`);
    }
    return true;
  } catch (error) {
    if (signal.aborted) return true;
    if (error instanceof RelayHttpError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    ctx.log.error(`upstream stream failed: ${reason}`);
    throw new RelayHttpError(502, 'upstream_error', `The model server's stream broke: ${reason}`);
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', onAbort);
    void reader.cancel().catch(() => {});
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
