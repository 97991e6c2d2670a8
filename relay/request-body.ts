import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { RelayHttpError } from './http-error.ts';

/**
 * Reads a body as text, refusing more than `maxBytes` (checked as it streams in, not after) and a
 * body that takes longer than `timeoutMs` to arrive (a client trickling bytes would otherwise hold
 * a socket open for ever).
 */
export async function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooLarge = () =>
    new RelayHttpError(413, 'body_too_large', `Request body is larger than the relay's limit of ${maxBytes} bytes.`, {
      Connection: 'close',
    });
  if (declared > maxBytes) throw tooLarge();
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: RelayHttpError) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new RelayHttpError(400, 'invalid_request', 'The request body was cut off.', { Connection: 'close' }));
    const timer = setTimeout(
      () => finish(new RelayHttpError(408, 'body_timeout', `The request body took longer than ${Math.round(timeoutMs / 1000)} s to arrive.`, { Connection: 'close' })),
      timeoutMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** Reads a JSON body within the same limits (`readBody`). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<unknown> {
  const text = await readBody(req, maxBytes, timeoutMs);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'not JSON';
    throw new RelayHttpError(400, 'invalid_json', `Request body is not valid JSON: ${reason}`);
  }
}

const message = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().max(400_000),
  name: z.string().max(64).optional(),
});

/**
 * The chat completion fields the relay forwards. Anything else in the body is dropped, so a client
 * cannot smuggle parameters (or a different upstream) through.
 */
export const completionRequest = z
  .object({
    model: z.string().min(1).max(200),
    messages: z.array(message).min(1).max(1_000),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean() }).optional(),
    max_tokens: z.number().int().min(1).max(32_768).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(-1).max(1_000).optional(),
    min_p: z.number().min(0).max(1).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    repetition_penalty: z.number().min(0).max(2).optional(),
    stop: z.union([z.string().max(200), z.array(z.string().max(200)).max(8)]).optional(),
    seed: z.number().int().optional(),
    response_format: z.object({ type: z.enum(['text', 'json_object']) }).optional(),
  })
  .strip();
export type CompletionRequest = z.infer<typeof completionRequest>;

export function parseCompletionRequest(body: unknown): CompletionRequest {
  const parsed = completionRequest.safeParse(body);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw new RelayHttpError(400, 'invalid_request', `Invalid chat completion request: ${details}`);
  }
  return parsed.data;
}
