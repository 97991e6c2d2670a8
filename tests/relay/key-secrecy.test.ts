import { afterEach, expect, it } from 'vitest';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

let upstream: FakeUpstream;
let relay: RunningRelay;
afterEach(async () => {
  await relay.close();
  await upstream.close();
});

/** Everything a browser could see of one response. */
async function visible(response: Response): Promise<string> {
  const headers = [...response.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  return `${response.status}\n${headers}\n\n${await response.text()}`;
}

it('the API key never appears in a response, a header or a log line, on any path', async () => {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, RELAY_UPSTREAM_TIMEOUT_MS: '500', RELAY_MODELS_CACHE_MS: '1' });
  const echoKey = `Incorrect API key provided: ${TEST_KEY}`;
  upstream.next(
    (_req, res) => json(res, 401, { error: { message: echoKey } }),
    (_req, res) => json(res, 429, { error: { message: `limit for ${TEST_KEY}` } }),
    (_req, res) => json(res, 500, { error: { message: echoKey } }),
    (_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`bad gateway for Bearer ${TEST_KEY}`);
    },
    (_req, res) => json(res, 400, { error: { message: `model not found (key ${TEST_KEY})` } }),
    (_req, res) => {
      startSse(res);
      res.write(sseChunk('Fine.'));
      res.end('data: [DONE]\n\n');
    },
    () => {
      // times out
    },
  );
  const body = JSON.stringify({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] });
  const seen: string[] = [];
  const call = async (path: string, init?: RequestInit) => seen.push(await visible(await fetch(`${relay.url}${path}`, init)));
  const post = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
  for (let i = 0; i < 5; i++) await call('/api/v1/chat/completions', post);
  await call('/api/v1/chat/completions', { ...post, body: JSON.stringify({ ...JSON.parse(body), stream: true }) });
  await call('/api/v1/chat/completions', post);
  await call('/api/v1/chat/completions', { ...post, body: '{"broken' });
  await call('/api/health');
  await call('/api/v1/models');
  await call('/');
  upstream.setFallback((_req, res) => json(res, 403, { error: { message: echoKey } }));
  await new Promise((resolve) => setTimeout(resolve, 5));
  await call('/api/v1/models');

  // The calls really went through the error paths, and the upstream really got the key.
  expect(seen.map((s) => Number(s.split('\n')[0]))).toEqual([401, 429, 502, 502, 400, 200, 504, 400, 200, 200, 200, 401]);
  expect(upstream.completions().every((r) => r.headers.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
  expect(seen.join('\n')).toContain('[redacted]');

  for (const text of [...seen, ...relay.logs]) expect(text).not.toContain(TEST_KEY);
  expect(relay.logs.length).toBeGreaterThan(5);
});
