import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { SyncError } from '../../src/engine/sync/sync-error.ts';
import { startRelay, type RunningRelay } from '../support/relay-harness.ts';
import { relaysToCouch } from '../support/relays-to-couch.ts';
import { scratchDir } from '../support/scratch.ts';

const OWNER = 'the-owners-relay-token-0123';
const fixture = relaysToCouch();
const relay = (env: Record<string, string> = {}) => fixture.relay({ RELAY_TOKEN: OWNER, ...env });

async function call(r: RunningRelay, method: string, path: string, token: string | null, body?: unknown) {
  const response = await fetch(`${r.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The owner's token traded for a device's own, as the app does when the player enters it. */
async function enrol(r: RunningRelay, name: string): Promise<{ id: string; token: string }> {
  const answer = await call(r, 'POST', '/api/devices', OWNER, { name });
  expect(answer.status).toBe(201);
  return { id: answer.body.device.id, token: answer.body.token };
}

/** A pairing link's code, made on a device, claimed by a new one. */
async function pair(r: RunningRelay, from: string, name: string): Promise<{ id: string; token: string }> {
  const pairing = await call(r, 'POST', '/api/devices/pairings', from);
  expect(pairing.status).toBe(201);
  const claimed = await call(r, 'POST', '/api/devices/claim', null, { code: pairing.body.code, name });
  expect(claimed.status).toBe(201);
  return { id: claimed.body.device.id, token: claimed.body.token };
}

describe('devices, each with its own token (issue 36, part 8)', () => {
  it('a paired device syncs and calls the model with its own token; removed, its next call is refused while the others go on', async () => {
    const r = await relay();
    const laptop = await enrol(r, 'Laptop');
    const phone = await pair(r, laptop.token, 'Phone');
    expect(phone.token).not.toBe(laptop.token);

    const viaRelay = (token: string) => couchDatabase(`${r.url}/sync`, (url, init) => fetch(url, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }));
    await viaRelay(laptop.token).prepare();
    expect((await viaRelay(phone.token).changes(null, 10)).results.length).toBeGreaterThan(0);
    expect((await call(r, 'GET', '/api/v1/models', phone.token)).status).toBe(200);

    // Both are listed, each by its name, and each knows which one it is.
    const listed = await call(r, 'GET', '/api/devices', phone.token);
    expect(listed.body.self).toBe(phone.id);
    expect(listed.body.devices.map((d: { name: string }) => d.name).sort()).toEqual(['Laptop', 'Phone']);
    expect(listed.body.devices.every((d: { lastSeenAt: number }) => d.lastSeenAt > Date.now() - 60_000)).toBe(true);

    // The laptop removes the phone: at once, the phone's sync and model calls are refused, by name.
    expect((await call(r, 'DELETE', `/api/devices/${phone.id}`, laptop.token)).status).toBe(200);
    const refused = await viaRelay(phone.token).changes(null, 10).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyncError);
    expect((refused as SyncError).problem).toBe('device-removed');
    const model = await call(r, 'GET', '/api/v1/models', phone.token);
    expect(model.status).toBe(401);
    expect(model.body.error.code).toBe('device_removed');
    // The laptop goes on.
    expect((await viaRelay(laptop.token).changes(null, 10)).results.length).toBeGreaterThan(0);
    expect((await call(r, 'GET', '/api/devices', laptop.token)).body.devices.map((d: { name: string }) => d.name)).toEqual(['Laptop']);
  });

  it('a device token is for sync and the model proxy: it changes no connection and enrols no device by itself', async () => {
    const r = await relay();
    const laptop = await enrol(r, 'Laptop');
    const change = await call(r, 'PUT', '/api/connection', laptop.token, { kind: 'demo' });
    expect(change.status).toBe(403);
    expect(change.body.error.code).toBe('owner_only');
    expect((await call(r, 'DELETE', '/api/connection', laptop.token)).status).toBe(403);
    expect((await call(r, 'GET', '/api/connection', laptop.token)).status).toBe(200);
    expect((await call(r, 'POST', '/api/devices', laptop.token, { name: 'Sneaky' })).status).toBe(403);
    // The owner's token still does both.
    expect((await call(r, 'PUT', '/api/connection', OWNER, { kind: 'demo' })).status).toBe(200);
  });

  it('a pairing code works once and within its hour; every other way in is refused with a reason', async () => {
    const r = await relay();
    const laptop = await enrol(r, 'Laptop');
    const pairing = await call(r, 'POST', '/api/devices/pairings', laptop.token);
    expect(pairing.body.expiresAt - Date.now()).toBeGreaterThan(59 * 60_000);
    expect((await call(r, 'POST', '/api/devices/claim', null, { code: pairing.body.code, name: 'Phone' })).status).toBe(201);
    const again = await call(r, 'POST', '/api/devices/claim', null, { code: pairing.body.code, name: 'Thief' });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('pairing_used');
    for (const body of [{ code: 'rpe_p_made-up', name: 'Guess' }, { name: 'No code' }, 'not json', [1, 2]]) {
      expect((await call(r, 'POST', '/api/devices/claim', null, body)).status).toBeGreaterThanOrEqual(400);
    }
    // Names: 1 to 60 characters, control characters made spaces.
    const second = await call(r, 'POST', '/api/devices/pairings', laptop.token);
    expect((await call(r, 'POST', '/api/devices/claim', null, { code: second.body.code, name: 'x'.repeat(61) })).status).toBe(400);
    expect((await call(r, 'POST', '/api/devices/claim', null, { code: second.body.code, name: '  Tablet\u0007 ' })).body.device.name).toBe('Tablet');
    // Unknown tokens, a device token made up, and no token at all.
    expect((await call(r, 'GET', '/api/devices', 'rpe_d_made-up')).body.error.code).toBe('device_removed');
    expect((await call(r, 'GET', '/api/devices', 'wrong-token-of-some-length')).body.error.code).toBe('relay_unauthorized');
    expect((await call(r, 'GET', '/api/devices', null)).status).toBe(401);
    expect((await call(r, 'DELETE', '/api/devices/no-such-device', laptop.token)).status).toBe(404);
    // No token or code in the relay's log.
    expect(r.logs.join('\n')).not.toMatch(/rpe_[dp]_[A-Za-z0-9_-]{20}/);
  });

  it('keeps devices across a restart with only the hashes of their tokens on disk; last seen reaches the disk', async () => {
    const file = join(scratchDir('relay-devices-'), 'devices.json');
    const first = await relay({ RELAY_DEVICES_FILE: file });
    const laptop = await enrol(first, 'Laptop');
    const phone = await pair(first, laptop.token, 'Phone');
    await first.close();
    const stored = readFileSync(file, 'utf8');
    expect(stored).not.toContain(laptop.token);
    expect(stored).not.toContain(phone.token);
    expect(stored).toContain('Phone');

    const second = await relay({ RELAY_DEVICES_FILE: file, SYNC_DATABASE: first.config.sync!.database.split('/').at(-1)! });
    expect((await call(second, 'GET', '/api/devices', phone.token)).body.devices).toHaveLength(2);
    expect((await call(second, 'DELETE', `/api/devices/${phone.id}`, laptop.token)).status).toBe(200);
    await second.close();
    const third = await relay({ RELAY_DEVICES_FILE: file });
    expect((await call(third, 'GET', '/api/devices', phone.token)).status).toBe(401);
    expect((await call(third, 'GET', '/api/devices', laptop.token)).status).toBe(200);
  });

  it('refuses to start on a devices file it did not write, rather than let anyone in', async () => {
    const file = join(scratchDir('relay-devices-'), 'devices.json');
    writeFileSync(file, '{"devices": [{"id": "x", "tokenHash": "not a hash"}]}');
    await expect(relay({ RELAY_DEVICES_FILE: file })).rejects.toThrow(/not one this relay wrote/);
  });

  it('a relay without RELAY_TOKEN answers this computer only and has no devices to list or pair', async () => {
    const r = await startRelay({});
    try {
      expect((await call(r, 'GET', '/api/devices', null)).body).toEqual({ open: true, self: null, devices: [] });
      const pairing = await call(r, 'POST', '/api/devices/pairings', null);
      expect(pairing.status).toBe(409);
      expect(pairing.body.error.message).toMatch(/RELAY_TOKEN/);
    } finally {
      await r.close();
    }
  });
});
