import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../relay/image-proxy.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let relay: RunningRelay | undefined;
let site: Server | undefined;
afterEach(async () => {
  await relay?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  relay = site = undefined;
});

/** "Another site" on loopback: what each path answers, and every request it was sent (with its headers). */
async function startSite(routes: Record<string, (res: import('node:http').ServerResponse) => void>) {
  const seen: { path: string; headers: Record<string, unknown> }[] = [];
  site = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, port: (site.address() as AddressInfo).port, seen };
}

const ask = (address: string, headers: Record<string, string> = { 'X-Roleplay-Engine': 'image' }) =>
  fetch(`${relay!.url}/api/image?url=${encodeURIComponent(address)}`, { headers });

describe('remote pictures through the relay', () => {
  it('never fetches from this computer or a private network, nor for a request that is not the app’s, and says why', async () => {
    const other = await startSite({ '/a.png': (res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG) });
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY });
    for (const address of [`${other.url}/a.png`, `http://localhost:${other.port}/a.png`, 'http://[::1]/a.png', 'http://10.1.2.3/a.png', 'http://192.168.1.1/a.png', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/a.png', 'http://0x7f000001/a.png', 'http://[2002:7f00:1::]/a.png']) {
      const answer = await ask(address);
      expect([address, answer.status]).toEqual([address, 403]);
      expect((await answer.json()).error.message).toMatch(/not fetched from .*this computer or a private network/);
    }
    expect(other.seen).toEqual([]);
    // An <img> on another site (no header) and malformed addresses.
    expect((await ask(`${other.url}/a.png`, {})).status).toBe(403);
    expect((await ask('javascript:alert(1)')).status).toBe(400);
    expect((await ask('http://user:secret@example.com/a.png')).status).toBe(400);
    expect((await fetch(`${relay.url}/api/image`, { headers: { 'X-Roleplay-Engine': 'image' } })).status).toBe(400);
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(['100.64.0.1', 'fd00::1', 'fe80::1', '0.0.0.0', 'not-an-ip'].map(isPublicAddress)).toEqual([false, false, false, false, false]);
  });

  it('with the relay token set, a picture needs it too; the log names neither the picture’s address nor the token', async () => {
    const other = await startSite({ '/secret-path.png': (res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG) });
    const token = 'a-relay-token-of-some-length';
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_TOKEN: token }, { imageProxy: { allowAddress: (_a, port) => port === other.port } });
    expect((await ask(`${other.url}/secret-path.png`)).status).toBe(401);
    const ok = await ask(`${other.url}/secret-path.png`, { 'X-Roleplay-Engine': 'image', Authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(relay.logs.join('\n')).not.toMatch(/secret-path|a-relay-token/);
  });

  it('fetches a picture with nothing of the player’s, checks each redirect, and refuses what is not a picture, too large, or too slow', async () => {
    const other = await startSite({
      '/a.png': (res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG),
      '/moved': (res) => res.writeHead(302, { Location: '/a.png' }).end(),
      '/to-relay': (res) => res.writeHead(302, { Location: `${relay!.url}/api/health` }).end(),
      '/page.html': (res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<script>alert(1)</script>'),
      '/drawing.svg': (res) => res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg onload="alert(1)"/>'),
      '/liar.png': (res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end('<html>not a png</html>'),
      '/huge.png': (res) => {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        res.write(PNG);
        res.end(Buffer.alloc(300_000));
      },
      '/stall.png': (res) => res.writeHead(200, { 'Content-Type': 'image/png' }),
      '/loop': (res) => res.writeHead(302, { Location: '/loop' }).end(),
    });
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY }, { imageProxy: { allowAddress: (_a, port) => port === other.port, maxBytes: 200_000, timeoutMs: 1_500 } });
    const picture = await ask(`${other.url}/a.png`);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await picture.arrayBuffer()).equals(PNG)).toBe(true);
    const first = other.seen[0]!.headers;
    expect([first.cookie, first.referer, first.authorization, first.origin]).toEqual([undefined, undefined, undefined, undefined]);

    expect((await ask(`${other.url}/moved`)).status).toBe(200);
    // A redirect to an address not allowed (the relay itself, another port) is refused, not followed.
    const bounced = await ask(`${other.url}/to-relay`);
    expect(bounced.status).toBe(403);
    expect((await ask(`${other.url}/loop`)).status).toBe(502);
    for (const [path, status, message] of [
      ['/page.html', 415, /not a picture this app shows \(text\/html\)/],
      ['/drawing.svg', 415, /not a picture this app shows \(image\/svg\+xml\)/],
      ['/liar.png', 415, /says it is image\/png, but it is not/],
      ['/huge.png', 413, /over/],
      ['/stall.png', 504, /longer than 1.5 s/],
    ] as const) {
      const answer = await ask(`${other.url}${path}`);
      expect([path, answer.status]).toEqual([path, status]);
      expect((await answer.json()).error.message).toMatch(message);
    }
  });
});
