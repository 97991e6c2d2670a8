import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunningRelay } from '../support/relay-harness.ts';
import { relaysToCouch } from '../support/relays-to-couch.ts';
import { scratchDir } from '../support/scratch.ts';

const { relay } = relaysToCouch();

async function call(r: RunningRelay, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${r.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, generation: response.headers.get('x-sync-generation'), body: (await response.json()) as Record<string, any> };
}

describe('the sync database in generations (issue 36, part 9)', () => {
  it('names its generation on every sync answer, and refuses a device still on the one before, by name', async () => {
    const r = await relay();
    expect((await call(r, 'PUT', '/sync')).generation).toBe('1');
    const begun = await call(r, 'POST', '/api/sync/rewrites', { device: 'laptop' });
    expect(begun.status).toBe(201);
    expect(begun.body.generation).toBe(2);
    // The next generation is reached only under its lease; a made-up lease is refused.
    expect((await call(r, 'PUT', '/sync', undefined, { 'x-sync-rewrite': begun.body.lease })).status).toBe(412);
    expect((await call(r, 'GET', '/sync', undefined, { 'x-sync-rewrite': 'made-up' })).body.error.code).toBe('rewrite_lost');
    // Another device may not begin while this one's lease lives; the same device takes it over.
    expect((await call(r, 'POST', '/api/sync/rewrites', { device: 'phone' })).body.error.code).toBe('rewrite_busy');
    const again = await call(r, 'POST', '/api/sync/rewrites', { device: 'laptop' });
    expect(again.status).toBe(201);
    expect((await call(r, 'POST', '/api/sync/rewrites/commit', { lease: begun.body.lease })).body.error.code).toBe('rewrite_lost');
    expect((await call(r, 'POST', '/api/sync/rewrites/commit', { lease: again.body.lease })).body.generation).toBe(2);

    const stale = await call(r, 'GET', '/sync/_changes?limit=1', undefined, { 'x-sync-generation': '1' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('sync_generation_changed');
    const current = await call(r, 'GET', '/sync/_changes?limit=1', undefined, { 'x-sync-generation': '2' });
    expect([current.status, current.generation]).toEqual([200, '2']);
  });

  it('a long-poll waiting on the database a commit retires ends at the commit, saying the story moved', async () => {
    const r = await relay();
    await call(r, 'PUT', '/sync');
    const waiting = call(r, 'GET', '/sync/_changes?feed=longpoll&timeout=60000&since=now', undefined, { 'x-sync-generation': '1' });
    const begun = await call(r, 'POST', '/api/sync/rewrites', { device: 'laptop' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await call(r, 'POST', '/api/sync/rewrites/commit', { lease: begun.body.lease });
    const ended = await waiting;
    expect([ended.status, ended.body.error.code]).toEqual([409, 'sync_generation_changed']);
  });

  it('refuses malformed rewrite requests with a reason, and a state file it did not write at start', async () => {
    const r = await relay();
    for (const [path, body] of [
      ['/api/sync/rewrites', {}],
      ['/api/sync/rewrites', { device: 'x'.repeat(101) }],
      ['/api/sync/rewrites/commit', {}],
      ['/api/sync/rewrites/commit', 'not json'],
    ] as const) {
      expect((await call(r, 'POST', path, body)).status).toBeGreaterThanOrEqual(400);
    }
    expect((await call(r, 'GET', '/api/sync/rewrites')).status).toBe(405);
    const file = join(scratchDir('sync-state-'), 'sync.json');
    writeFileSync(file, '{"generation": "two"}');
    await expect(relay({ RELAY_SYNC_STATE_FILE: file })).rejects.toThrow(/not one this relay wrote/);
  });
});
