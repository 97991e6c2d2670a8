import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { ConfigError } from '../../relay/config-error.ts';
import { loadConfig } from '../../relay/config.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

let upstream: FakeUpstream | undefined;
let relay: RunningRelay | undefined;
afterEach(async () => {
  await relay?.close();
  await upstream?.close();
  relay = upstream = undefined;
});

async function start(env: Record<string, string> = {}) {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, ...env });
  return { upstream, relay };
}

const chat = { model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] };
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('requests the relay refuses, each with its status and a clear JSON error', () => {
  it('unknown paths 404, wrong methods 405 with Allow', async () => {
    const { relay } = await start();
    const missing = await fetch(`${relay.url}/api/v1/embeddings`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');
    const wrong = await fetch(`${relay.url}/api/v1/chat/completions`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await fetch(`${relay.url}/api/health`, { method: 'DELETE' })).status).toBe(405);
  });

  it('malformed JSON 400, invalid fields 400 naming the field, non-JSON content type 415', async () => {
    const { relay, upstream } = await start();
    const malformed = await post(relay.url, '{"model": ');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({ code: 'invalid_json' });
    const invalid = await post(relay.url, { model: 'small-8b', messages: [{ role: 'wizard', content: 1 }], temperature: 9 });
    expect(invalid.status).toBe(400);
    const message = (await invalid.json()).error.message as string;
    expect(message).toMatch(/messages\.0\.role/);
    expect(message).toMatch(/temperature/);
    const text = await fetch(`${relay.url}/api/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(chat) });
    expect(text.status).toBe(415);
    expect(upstream.completions()).toHaveLength(0);
  });

  it('a body over the limit 413, and the connection still serves the next request', async () => {
    const { relay } = await start({ RELAY_MAX_BODY_BYTES: '2000' });
    const big = await post(relay.url, { ...chat, messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('body_too_large');
    // A body with no declared length is cut off as it streams in.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${relay.url}/api/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"model":"small-8b","messages":[{"role":"user","content":"');
      req.end(`${'y'.repeat(5000)}"}]}`);
    });
    expect(chunked).toBe(413);
    const after = await post(relay.url, chat);
    expect(after.status).toBe(200);
  });

  it('a model outside the allow-list 403, and the model list shows only allowed ones', async () => {
    const { relay, upstream } = await start({ RELAY_MODELS: 'small-8b' });
    const refused = await post(relay.url, { ...chat, model: 'huge-405b' });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('model_not_allowed');
    upstream.setFallback((_req, res) =>
      json(res, 200, { object: 'list', data: [{ id: 'small-8b' }, { id: 'huge-405b' }] }),
    );
    const models = await relay.client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(['small-8b']);
  });

  it('over the per-client stream limit 429 with Retry-After and a reason', async () => {
    const { relay, upstream } = await start({ RELAY_MAX_STREAMS: '1' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    upstream.next(async (_req, res) => {
      startSse(res);
      res.write(sseChunk('slow'));
      await held;
      res.end('data: [DONE]\n\n');
    });
    const first = await post(relay.url, { ...chat, stream: true });
    const reader = first.body!.getReader();
    await reader.read();
    const second = await post(relay.url, { ...chat, stream: true });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('2');
    expect((await second.json()).error).toMatchObject({ code: 'too_many_streams', message: expect.stringMatching(/allows 1/) });
    release();
    while (!(await reader.read()).done) {
      // drain
    }
    await expect.poll(async () => (await post(relay.url, { ...chat, stream: true })).status).toBe(200);
  });

  it('requests from another site 403, and a DNS-rebinding Host 403', async () => {
    const { relay, upstream } = await start();
    const cross = await post(relay.url, chat, { Origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    const rebinding = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${relay.url}/api/health`, { headers: { Host: 'evil.example:8787' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebinding).toBe(403);
    expect(upstream.completions()).toHaveLength(0);
  });
});

describe('the relay token', () => {
  it('refuses to start on a non-loopback address without one', () => {
    expect(() => loadConfig({ RELAY_HOST: '0.0.0.0' }, '/tmp')).toThrow(ConfigError);
    expect(() => loadConfig({ RELAY_HOST: '0.0.0.0' }, '/tmp')).toThrow(/without RELAY_TOKEN/);
    expect(() => loadConfig({ RELAY_HOST: '0.0.0.0', RELAY_TOKEN: 'short' }, '/tmp')).toThrow(/16 or more/);
    expect(loadConfig({ RELAY_HOST: '0.0.0.0', RELAY_TOKEN: 'a-long-enough-secret-token' }, '/tmp').host).toBe('0.0.0.0');
  });

  it('when set, every API call must carry it; the static app does not need it', async () => {
    const token = 'a-long-enough-secret-token';
    const { relay } = await start({ RELAY_TOKEN: token });
    expect((await fetch(`${relay.url}/api/health`)).status).toBe(401);
    expect((await fetch(`${relay.url}/api/health`, { headers: { Authorization: 'Bearer wrong-token-of-some-length' } })).status).toBe(401);
    expect((await fetch(`${relay.url}/api/health`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const reply = await relay.client({ apiKey: token }).chat.completions.create({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] });
    expect(reply.choices[0]?.message.content).toBe('Hello there.');
    expect((await fetch(`${relay.url}/`)).status).toBe(200);
  });
});

describe('upstream failures become typed errors the UI can show with a Retry', () => {
  it('401 key rejected, 429 busy with Retry-After, 5xx as 502', async () => {
    const { relay, upstream } = await start();
    upstream.next(
      (_req, res) => json(res, 401, { error: { message: 'invalid key' } }),
      (_req, res) => json(res, 429, { error: { message: 'concurrency limit' } }, { 'Retry-After': '7' }),
      (_req, res) => json(res, 503, { error: { message: 'overloaded' } }),
    );
    const rejected = await post(relay.url, chat);
    expect(rejected.status).toBe(401);
    expect((await rejected.json()).error).toMatchObject({ code: 'upstream_key_rejected', message: expect.stringMatching(/Check FEATHERLESS_API_KEY/) });
    const busy = await post(relay.url, chat);
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('7');
    expect((await busy.json()).error.code).toBe('upstream_busy');
    const failed = await post(relay.url, chat);
    expect(failed.status).toBe(502);
    expect((await failed.json()).error).toMatchObject({ code: 'upstream_error', message: expect.stringMatching(/503.*overloaded/) });
  });

  it('an upstream that never answers 504, one that is down 502', async () => {
    const { relay, upstream } = await start({ RELAY_UPSTREAM_TIMEOUT_MS: '300' });
    upstream.next(() => {
      // never answers
    });
    const slow = await post(relay.url, chat);
    expect(slow.status).toBe(504);
    expect((await slow.json()).error.code).toBe('upstream_timeout');
    await upstream.close();
    const down = await post(relay.url, chat);
    expect(down.status).toBe(502);
    expect((await down.json()).error.code).toBe('upstream_unreachable');
  });
});
