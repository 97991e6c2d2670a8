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

it('the key in any encoding, or spread over stream events, reaches the client as "[redacted]", never whole once decoded', async () => {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, RELAY_MODELS_CACHE_MS: '1' });
  const escaped = [...TEST_KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const thirds = [TEST_KEY.slice(0, 10), TEST_KEY.slice(10, 20), TEST_KEY.slice(20)];
  upstream.next(
    // A 400 whose message escapes the key: the relay parses it.
    (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(`{"error":{"message":"bad key ${escaped}"}}`);
    },
    // A 200 whose reply escapes it.
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'KEY' }, finish_reason: 'stop' }] }).replace('KEY', `Your key: ${escaped}`));
    },
    // A stream that spreads it over three events, the client joining them.
    (_req, res) => {
      startSse(res);
      res.write(sseChunk('Your key is '));
      for (const third of thirds) res.write(sseChunk(third));
      res.write(sseChunk(' and that is all.'));
      res.end('data: [DONE]\n\n');
    },
    // A stream that escapes it in one event, and upper-cases it in another.
    (_req, res) => {
      startSse(res);
      res.write(`data: {"id":"c2","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${escaped}"},"finish_reason":null}]}\n\n`);
      res.write(sseChunk(` ${TEST_KEY.toUpperCase()}`));
      res.end('data: [DONE]\n\n');
    },
  );
  upstream.setFallback((req, res) => {
    if (req.path === '/v1/models') {
      return json(res, 200, {
        object: 'list',
        data: [Buffer.from(TEST_KEY).toString('base64'), encodeURIComponent(`%${TEST_KEY}`).replace(/[a-z0-9_]/gi, (c) => `%${c.charCodeAt(0).toString(16)}`), TEST_KEY.toUpperCase()].map((id) => ({ id, model_class: 'llama3-8b' })),
      });
    }
    json(res, 404, { error: 'no' });
  });

  const client = relay.client();
  const ask = { model: 'small-8b', messages: [{ role: 'user' as const, content: 'Hi' }] };
  const seen: string[] = [];
  seen.push(((await client.chat.completions.create(ask).catch((e: unknown) => e)) as Error).message);
  seen.push((await client.chat.completions.create(ask)).choices[0]!.message.content ?? '');
  for (let i = 0; i < 2; i++) {
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...ask, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    seen.push(text);
  }
  seen.push(JSON.stringify(await (await fetch(`${relay.url}/api/v1/models`)).json()));

  expect(seen[0]).toMatch(/bad key \[redacted\]/);
  expect(seen[2]).toBe('Your key is [redacted] and that is all.');
  const decoded = seen.flatMap((text) => [text, text.toLowerCase(), decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, '%25')), ...(text.match(/[A-Za-z0-9+/=]{12,}/g) ?? []).map((w) => Buffer.from(w, 'base64').toString('latin1'))]);
  for (const text of decoded) expect(text.toLowerCase()).not.toContain(TEST_KEY.toLowerCase().slice(3, 20));
});
