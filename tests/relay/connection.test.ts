import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { json, startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, type RunningRelay } from '../support/relay-harness.ts';
import { scratchDir } from '../support/scratch.ts';

const KEY = 'fl_app_set_key_9876543210ZYXW';
const TOKEN = 'relay-token-long-enough-1234';
let upstream: FakeUpstream;
const relays: RunningRelay[] = [];
afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.close();
  await upstream?.close();
});

const connectionFile = () => join(scratchDir('relay-conn-'), 'connection.json');
async function relayWith(env: Record<string, string>) {
  const relay = await startRelay(env);
  relays.push(relay);
  return relay;
}
const call = (relay: RunningRelay, method: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${relay.url}/api/connection`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const complete = (relay: RunningRelay) => relay.client().chat.completions.create({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] });

describe('the connection, set from the app', () => {
  it('the demo model can be chosen again after another server, and is kept across a restart, whatever the environment holds', async () => {
    upstream = await startFakeUpstream();
    const file = connectionFile();
    const relay = await relayWith({ RELAY_CONNECTION_FILE: file, FEATHERLESS_API_KEY: 'fl_env_key_1234567890' });
    await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: KEY });
    const back = await call(relay, 'PUT', { kind: 'demo' });
    expect(await back.json()).toMatchObject({ mode: 'demo', kind: 'demo', keySet: false, keyHint: null, source: 'app' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ demo: true });
    const reply = await complete(relay);
    expect(reply.choices[0]!.message.content).toMatch(/demo model/);
    expect(upstream.completions()).toHaveLength(0);
    const again = await relayWith({ RELAY_CONNECTION_FILE: file, FEATHERLESS_API_KEY: 'fl_env_key_1234567890' });
    expect(await (await call(again, 'GET')).json()).toMatchObject({ mode: 'demo', kind: 'demo' });
    // Remove goes back to the environment's own settings.
    expect(await (await call(again, 'DELETE')).json()).toMatchObject({ mode: 'upstream', kind: 'featherless', source: 'environment' });
  });

  it('a key set from the app is used at once, kept in a file only its user can read, never shown back but for its last four', async () => {
    upstream = await startFakeUpstream();
    const file = connectionFile();
    const relay = await relayWith({ RELAY_CONNECTION_FILE: file });
    expect(await (await call(relay, 'GET')).json()).toMatchObject({ mode: 'demo', keySet: false, keyHint: null, source: null });

    const set = await call(relay, 'PUT', { kind: 'custom', baseUrl: `${upstream.url}/`, apiKey: ` ${KEY} ` });
    const shown = await set.text();
    expect(set.status).toBe(200);
    expect(shown).not.toContain(KEY);
    expect(JSON.parse(shown)).toMatchObject({ mode: 'upstream', kind: 'custom', baseUrl: upstream.url, keySet: true, keyHint: '…ZYXW', source: 'app' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ upstream: upstream.url, apiKey: KEY });

    const reply = await complete(relay);
    expect(reply.choices[0]!.message.content).toBe('Hello there.');
    expect(upstream.completions().at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await (await fetch(`${relay.url}/api/health`)).json()).toMatchObject({ mode: 'upstream' });
    expect(relay.logs.join('\n')).not.toContain(KEY);

    // A relay started again reads what the app set.
    const again = await relayWith({ RELAY_CONNECTION_FILE: file });
    expect(await (await call(again, 'GET')).json()).toMatchObject({ mode: 'upstream', keyHint: '…ZYXW', source: 'app' });
  });

  it('the new key is redacted like the old one: an upstream echoing it shows "[redacted]"', async () => {
    upstream = await startFakeUpstream();
    const relay = await relayWith({});
    await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: KEY });
    upstream.next((_req, res) => json(res, 400, { error: { message: `bad key ${KEY}` } }));
    const error = await complete(relay).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toContain('[redacted]');
    expect(error).not.toContain(KEY);
  });

  it('a local server needs no key: requests go without one; Remove goes back to the demo model', async () => {
    upstream = await startFakeUpstream();
    const file = connectionFile();
    const relay = await relayWith({ RELAY_CONNECTION_FILE: file });
    expect(await (await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url })).json()).toMatchObject({ mode: 'upstream', keySet: false });
    await complete(relay);
    expect(upstream.completions().at(-1)!.headers.authorization).toBeUndefined();
    const models = await (await fetch(`${relay.url}/api/v1/models`)).json();
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['small-8b']);

    expect(await (await call(relay, 'DELETE')).json()).toMatchObject({ mode: 'demo', source: null });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
    const before = upstream.completions().length;
    const demo = await complete(relay);
    expect(demo.choices[0]!.message.content).toMatch(/demo model/);
    expect(upstream.completions()).toHaveLength(before);
  });

  it('a key stays with the server it was given for: another server set without a key gets none, on any path', async () => {
    upstream = await startFakeUpstream();
    const elsewhere = await startFakeUpstream();
    try {
      // The key came with the relay's environment, for its server; then the app points elsewhere.
      const relay = await relayWith({ FEATHERLESS_API_KEY: KEY, RELAY_UPSTREAM: upstream.url });
      await complete(relay);
      expect(upstream.completions().at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      const moved = await (await call(relay, 'PUT', { kind: 'custom', baseUrl: elsewhere.url })).json();
      expect(moved).toMatchObject({ baseUrl: elsewhere.url, keySet: false });
      await complete(relay);
      await fetch(`${relay.url}/api/v1/models`);
      expect(elsewhere.seen.length).toBeGreaterThanOrEqual(2);
      expect(elsewhere.seen.filter((r) => r.headers.authorization !== undefined).map((r) => r.path)).toEqual([]);
      expect(JSON.stringify(elsewhere.seen.map((r) => r.headers))).not.toContain(KEY);

      // A key set from the app for one server is not carried to the next one set without a key.
      await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: `${KEY}-app` });
      await call(relay, 'PUT', { kind: 'custom', baseUrl: elsewhere.url });
      await complete(relay).catch(() => undefined);
      expect(JSON.stringify(elsewhere.seen.map((r) => r.headers))).not.toContain(KEY);

      // Back to the environment's own server, its key is its own again.
      await call(relay, 'DELETE');
      await complete(relay);
      expect(upstream.completions().at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses what is not a key or a server, with a specific message, and changes nothing', async () => {
    upstream = await startFakeUpstream();
    const relay = await relayWith({});
    for (const [body, message] of [
      [{ kind: 'featherless' }, /Paste your Featherless API key/],
      [{ kind: 'featherless', apiKey: 'has spaces in it' }, /does not look like an API key/],
      [{ kind: 'featherless', apiKey: 'short' }, /does not look like an API key/],
      [{ kind: 'custom', baseUrl: 'not a url' }, /is not a URL/],
      [{ kind: 'custom', baseUrl: 'file:///etc/passwd' }, /must start with http/],
      [{ kind: 'custom', baseUrl: 'http://user:pass@127.0.0.1/v1' }, /not in the address/],
      [{ kind: 'custom', baseUrl: 'http://127.0.0.1:5991/internal/_all_docs?include_docs=true#' }, /no query .* or fragment/],
      [{ kind: 'custom', baseUrl: 'http://127.0.0.1:5991/v1#' }, /no query .* or fragment/],
      [{ kind: 'custom', baseUrl: 'http://127.0.0.1:5991/v1?' }, /no query .* or fragment/],
      [{ kind: 'elsewhere' }, /Send \{ kind/],
    ] as const) {
      const response = await call(relay, 'PUT', body);
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toMatch(message);
    }
    expect(await (await call(relay, 'GET')).json()).toMatchObject({ mode: 'demo', keySet: false });
  });

  it('off loopback only the relay token opens it, and another site never does', async () => {
    upstream = await startFakeUpstream();
    const relay = await relayWith({ RELAY_TOKEN: TOKEN });
    expect((await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: KEY })).status).toBe(401);
    expect((await call(relay, 'GET')).status).toBe(401);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: KEY }, { ...auth, Origin: 'https://evil.example' })).status).toBe(403);
    expect(await (await call(relay, 'GET', undefined, auth)).json()).toMatchObject({ mode: 'demo' });
    expect((await call(relay, 'PUT', { kind: 'custom', baseUrl: upstream.url, apiKey: KEY }, auth)).status).toBe(200);
    expect((await call(relay, 'PATCH', {}, auth)).status).toBe(405);
  });
});
