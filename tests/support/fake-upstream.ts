import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible model server on loopback: the one thing the tests fake. It speaks the real
 * protocol (JSON and SSE), records every request it saw, and each test scripts its answers.
 */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Resolves when the connection to the relay closes (finished or aborted). */
  closed: Promise<void>;
  aborted: () => boolean;
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export function sseChunk(content: string, extra: Record<string, unknown> = {}): string {
  const chunk = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * Thinking models as they stream (issue 35): the thinking in `<think>` tags inside the content
 * (DeepSeek-R1's distills, QwQ, Qwen3), after a template-opened block (only `</think>` streams), or
 * beside the content as `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama).
 * Words go out one by one, `delayMs` apart, so a test sees the thinking stream before the reply.
 */
export type ThinkingStyle = 'tags' | 'template-opened' | 'reasoning_content' | 'reasoning';

export function thinkingModel(style: ThinkingStyle, thinking: string, reply: string, delayMs = 20): FakeHandler {
  const words = (text: string) => text.match(/\S+\s*/g) ?? [];
  return async (req, res) => {
    startSse(res);
    const send = async (chunk: string) => {
      if (req.aborted()) return;
      res.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    };
    const beside = (field: string, text: string) => sseChunk('', { choices: [{ index: 0, delta: { content: null, [field]: text }, finish_reason: null }] });
    if (style === 'tags') await send(sseChunk('<thi'));
    if (style === 'tags') await send(sseChunk('nk>\n'));
    for (const word of words(thinking)) await send(style === 'tags' || style === 'template-opened' ? sseChunk(word) : beside(style, word));
    if (style === 'tags' || style === 'template-opened') await send(sseChunk('\n</think>\n\n'));
    for (const word of words(reply)) await send(sseChunk(word));
    if (!req.aborted()) res.end(`${sseChunk('', { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}data: [DONE]\n\n`);
  };
}

/**
 * A model that runs on (issue 35): it starts with its speaker's label and, after its reply, goes on
 * writing the player's next line and more, a word every `delayMs`, until the connection closes.
 */
export function runOnModel(reply: string, delayMs = 5): FakeHandler {
  return async (req, res) => {
    startSse(res);
    for (const word of reply.match(/\S+\s*|\n/g) ?? []) {
      if (req.aborted()) return;
      res.write(sseChunk(word));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    for (let i = 0; i < 400 && !req.aborted(); i++) {
      res.write(sseChunk(` more${i}`));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    if (!req.aborted()) res.end('data: [DONE]\n\n');
  };
}

export function completion(content: string) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

export function startSse(res: ServerResponse) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startFakeUpstream() {
  const seen: SeenRequest[] = [];
  const handlers: FakeHandler[] = [];
  let fallback: FakeHandler = (req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: 'small-8b', model_class: 'llama3-8b' }] });
    if (req.path === '/v1/plan') return json(res, 404, { error: 'no plan here' });
    const body = req.body as { stream?: boolean };
    if (body.stream) {
      startSse(res);
      res.write(sseChunk('Hello'));
      res.write(sseChunk(' there.'));
      res.end('data: [DONE]\n\n');
      return;
    }
    json(res, 200, completion('Hello there.'));
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    let aborted = false;
    const closed = new Promise<void>((resolve) =>
      res.on('close', () => {
        aborted = !res.writableFinished;
        resolve();
      }),
    );
    const request: SeenRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://fake').pathname,
      headers: req.headers,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      closed,
      aborted: () => aborted,
    };
    seen.push(request);
    const isCompletion = request.path.endsWith('/chat/completions');
    const handler = (isCompletion ? handlers.shift() : undefined) ?? fallback;
    await handler(request, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    completions: () => seen.filter((r) => r.path.endsWith('/chat/completions')),
    /** Queue answers for the next chat completion requests, in order. */
    next(...handler: FakeHandler[]) {
      handlers.push(...handler);
    },
    setFallback(handler: FakeHandler) {
      fallback = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>;
