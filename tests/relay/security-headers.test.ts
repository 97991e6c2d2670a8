import { afterEach, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../relay/server.ts';
import { startRelay, type RunningRelay } from '../support/relay-harness.ts';

let relay: RunningRelay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

it('every response, the app, its assets, the API, sync, errors and 404s, forbids framing, referrers and sniffing', async () => {
  relay = await startRelay({});
  const responses: [string, Response][] = [];
  for (const [path, init] of [
    ['/', {}],
    ['/settings', {}],
    ['/sw.js', {}],
    ['/assets/nothing-here.js', {}],
    ['/api/health', {}],
    ['/api/v1/models', {}],
    ['/api/nope', {}],
    ['/api/v1/chat/completions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"broken' }],
    ['/api/health', { headers: { Origin: 'https://evil.example' } }],
    ['/sync/', {}],
  ] as const) {
    const response = await fetch(`${relay.url}${path}`, init);
    await response.arrayBuffer();
    responses.push([`${init && 'method' in init ? init.method : 'GET'} ${path} ${response.status}`, response]);
  }
  // The paths really answered in different ways: pages, JSON, errors.
  expect(new Set(responses.map(([, r]) => r.status)).size).toBeGreaterThanOrEqual(3);
  for (const [what, response] of responses) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect([what, name, response.headers.get(name)]).toEqual([what, name, value]);
  }
  const policy = SECURITY_HEADERS['Content-Security-Policy']!.split('; ');
  for (const directive of [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "img-src 'self' data: blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
  ]) expect(policy).toContain(directive);
  // No way back to inline script or eval.
  expect(SECURITY_HEADERS['Content-Security-Policy']).not.toMatch(/'unsafe-inline'|'unsafe-eval'|'unsafe-hashes'|\*/);
  expect(SECURITY_HEADERS['Permissions-Policy']).toContain('camera=()');
});
