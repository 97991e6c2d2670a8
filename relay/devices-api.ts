import type { IncomingMessage, ServerResponse } from 'node:http';
import { RelayHttpError, sendJson } from './http-error.ts';
import { nameOf, type DeviceRegistry, type DeviceView } from './devices.ts';
import { readJsonBody } from './request-body.ts';

/** Who is calling: the owner (`RELAY_TOKEN`), one of the devices, or anyone on this computer (no token set). */
export type Caller = { kind: 'owner' } | { kind: 'device'; device: DeviceView } | { kind: 'open' };

const NEEDS_TOKEN = 'This relay has no RELAY_TOKEN, so it answers only this computer and has no devices to list: set RELAY_TOKEN to sync other devices.';

/**
 * `/api/devices…`: the list (name, last seen), renaming and removing a device, pairing codes, and
 * the owner's token traded for a device's own. `/api/devices/claim` is the one call without a
 * bearer token: the pairing code it carries is the credential.
 */
export async function devicesApi(req: IncomingMessage, res: ServerResponse, path: string, caller: Caller, registry: DeviceRegistry, bodyTimeoutMs: number): Promise<void> {
  const method = req.method ?? 'GET';
  const body = () => readJsonBody(req, 4 * 1024, bodyTimeoutMs);
  const refuse = (allowed: string) => {
    throw new RelayHttpError(405, 'method_not_allowed', `${path} takes ${allowed}, not ${method}.`, { Allow: allowed });
  };
  if (caller.kind === 'open') {
    if (path === '/api/devices' && method === 'GET') return sendJson(res, 200, { open: true, self: null, devices: [] });
    throw new RelayHttpError(409, 'invalid_request', NEEDS_TOKEN);
  }
  if (path === '/api/devices') {
    if (method === 'GET') return sendJson(res, 200, { open: false, self: caller.kind === 'device' ? caller.device.id : null, devices: registry.list() });
    if (method !== 'POST') return refuse('GET, POST');
    // The owner's token, entered on a device, is traded for a token of the device's own.
    if (caller.kind !== 'owner') throw new RelayHttpError(403, 'owner_only', 'Only the relay token (RELAY_TOKEN) adds a device this way; a device pairs another by a pairing link.');
    return sendJson(res, 201, registry.enrol(nameOf(await body())));
  }
  if (path === '/api/devices/pairings') {
    if (method !== 'POST') return refuse('POST');
    return sendJson(res, 201, registry.newPairing());
  }
  const id = /^\/api\/devices\/([A-Za-z0-9_-]{1,40})$/.exec(path)?.[1];
  if (!id) throw new RelayHttpError(404, 'not_found', `No such API route: ${path}`);
  if (method === 'PUT') return sendJson(res, 200, registry.rename(id, nameOf(await body())));
  if (method === 'DELETE') {
    registry.remove(id);
    return sendJson(res, 200, { removed: id });
  }
  return refuse('PUT, DELETE');
}

/** `POST /api/devices/claim` `{ code, name }`: a pairing link's code traded, once, for a device's own token. */
export async function claimDevice(req: IncomingMessage, res: ServerResponse, registry: DeviceRegistry, open: boolean, bodyTimeoutMs: number): Promise<void> {
  if (req.method !== 'POST') throw new RelayHttpError(405, 'method_not_allowed', '/api/devices/claim takes POST.', { Allow: 'POST' });
  if (open) throw new RelayHttpError(409, 'invalid_request', NEEDS_TOKEN);
  const body = (await readJsonBody(req, 4 * 1024, bodyTimeoutMs)) as { code?: unknown } | null;
  const code = typeof body?.code === 'string' ? body.code : '';
  return sendJson(res, 201, registry.claim(code, nameOf(body)));
}
