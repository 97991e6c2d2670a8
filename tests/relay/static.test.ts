import { afterEach, beforeEach, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { GZIPPED_ASSET, startRelay, type RunningRelay } from '../support/relay-harness.ts';

let relay: RunningRelay;
beforeEach(async () => {
  relay = await startRelay({});
});
afterEach(() => relay.close());

it('serves the app with the right types and caching, deep links, and nothing outside dist/', async () => {
  const wasm = await fetch(`${relay.url}/assets/sqlite3-Zz99Yy88.wasm`);
  expect(wasm.headers.get('content-type')).toBe('application/wasm');
  expect(wasm.headers.get('cache-control')).toMatch(/immutable/);
  const js = await fetch(`${relay.url}/assets/app-Ab12Cd34.js`);
  expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
  const index = await fetch(`${relay.url}/`);
  expect(index.headers.get('cache-control')).toBe('no-cache');
  expect(await index.text()).toContain('<title>app</title>');
  const manifest = await fetch(`${relay.url}/manifest.webmanifest`);
  expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
  expect(manifest.headers.get('cache-control')).toBe('no-cache');

  const deepLink = await fetch(`${relay.url}/chats/0190-abc`);
  expect(deepLink.status).toBe(200);
  expect(await deepLink.text()).toContain('<title>app</title>');
  expect((await fetch(`${relay.url}/assets/missing-Ab12Cd34.js`)).status).toBe(404);

  // Raw paths, so no client normalises the dots away first.
  for (const path of ['/../../../etc/passwd', '/assets/..%2f..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd']) {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(relay.url, { path }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).not.toMatch(/root:/);
  }
  expect((await fetch(`${relay.url}/`, { method: 'POST' })).status).toBe(405);
});

it('sends a large asset gzipped to a browser that takes gzip, and as it is to one that does not', async () => {
  const get = (encoding: string | null, path = '/assets/tokenizer-Qq11Ww22.json') =>
    new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(relay.url, { path, headers: encoding === null ? {} : { 'Accept-Encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  const gzipped = await get('gzip, deflate, br');
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.headers['content-type']).toMatch(/^application\/json/);
  expect(gzipped.headers.vary).toBe('Accept-Encoding');
  expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
  expect(gzipped.body.length).toBeLessThan(GZIPPED_ASSET.length / 3);
  expect(gunzipSync(gzipped.body).toString()).toBe(GZIPPED_ASSET);
  for (const refused of [null, 'identity', 'gzip;q=0, br']) {
    const plain = await get(refused);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(GZIPPED_ASSET);
  }
  // A small file with nothing beside it is sent as it is, and says nothing of encodings.
  const js = await get('gzip', '/assets/app-Ab12Cd34.js');
  expect([js.headers['content-encoding'], js.headers.vary, js.body.toString()]).toEqual([undefined, undefined, 'console.log(1)']);
});
