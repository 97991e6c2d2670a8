import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { RelayHttpError } from './http-error.ts';

/**
 * The devices this relay lets in, each with its own token: a capability for sync and the model
 * proxy, kept here only as its SHA-256 (a stolen devices file opens nothing). `RELAY_TOKEN` stays
 * the owner's key: it enrols devices and changes the connection; a device's token does neither.
 */
export interface DeviceRecord {
  id: string;
  name: string;
  tokenHash: string;
  createdAt: number;
  lastSeenAt: number;
}

/** A pairing link's one-time code: claimed once, within its hour, for a device token. */
interface PairingRecord {
  codeHash: string;
  expiresAt: number;
}

export interface DeviceView {
  id: string;
  name: string;
  createdAt: number;
  lastSeenAt: number;
}

export const DEVICE_TOKEN_PREFIX = 'rpe_d_';
const PAIRING_PREFIX = 'rpe_p_';
const PAIRING_MS = 60 * 60 * 1000;
/** Last seen moves in memory on every call, and reaches the disk at most this often. */
const SEEN_WRITE_MS = 60 * 1000;
const MAX_DEVICES = 100;

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');
const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

const deviceName = z
  .string()
  .transform((s) => s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim())
  .pipe(z.string().min(1).max(60));

const storedFile = z.object({
  devices: z.array(z.object({ id: z.string(), name: z.string(), tokenHash: z.string().regex(/^[0-9a-f]{64}$/), createdAt: z.number(), lastSeenAt: z.number() })),
  pairings: z.array(z.object({ codeHash: z.string().regex(/^[0-9a-f]{64}$/), expiresAt: z.number() })),
});

function readStored(file: string | null): z.infer<typeof storedFile> {
  if (!file || !existsSync(file)) return { devices: [], pairings: [] };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    json = undefined;
  }
  const parsed = storedFile.safeParse(json);
  // A devices file the relay cannot read lets no device in: safer than guessing, and said at start.
  if (!parsed.success) throw new Error(`The devices file ${file} is not one this relay wrote; move it aside to start with no devices.`);
  return parsed.data;
}

export function nameOf(body: unknown): string {
  const parsed = deviceName.safeParse((body as { name?: unknown } | null)?.name);
  if (!parsed.success) throw new RelayHttpError(400, 'invalid_request', 'A device needs a name of 1 to 60 characters.');
  return parsed.data;
}

export function createDeviceRegistry(file: string | null, now: () => number = Date.now) {
  const stored = readStored(file);
  const devices = new Map(stored.devices.map((d) => [d.tokenHash, d]));
  let pairings: PairingRecord[] = stored.pairings;
  let seenWritten = now();

  /** Written whole to a temporary file, readable by the relay's user alone, then moved into place. */
  const save = () => {
    seenWritten = now();
    if (!file) return;
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ devices: [...devices.values()], pairings }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  };

  const view = (d: DeviceRecord): DeviceView => ({ id: d.id, name: d.name, createdAt: d.createdAt, lastSeenAt: d.lastSeenAt });

  function enrol(name: string): { device: DeviceView; token: string } {
    if (devices.size >= MAX_DEVICES) throw new RelayHttpError(409, 'invalid_request', `This relay already lets in ${MAX_DEVICES} devices: remove one in Settings → Sync first.`);
    const token = secret(DEVICE_TOKEN_PREFIX);
    const at = now();
    const record: DeviceRecord = { id: randomBytes(9).toString('base64url'), name, tokenHash: hash(token), createdAt: at, lastSeenAt: at };
    devices.set(record.tokenHash, record);
    save();
    return { device: view(record), token };
  }

  return {
    /** The device this bearer token belongs to, its last seen moved to now; undefined when none does. */
    authenticate(token: string): DeviceView | undefined {
      if (!token.startsWith(DEVICE_TOKEN_PREFIX)) return undefined;
      const record = devices.get(hash(token));
      if (!record) return undefined;
      record.lastSeenAt = now();
      if (record.lastSeenAt - seenWritten > SEEN_WRITE_MS) save();
      return view(record);
    },
    enrol,
    /** A one-time code for a pairing link. */
    newPairing(): { code: string; expiresAt: number } {
      const code = secret(PAIRING_PREFIX);
      const at = now();
      pairings = [...pairings.filter((p) => p.expiresAt > at), { codeHash: hash(code), expiresAt: at + PAIRING_MS }];
      save();
      return { code, expiresAt: at + PAIRING_MS };
    },
    /** Trades a pairing code for a device of its own: once, before the code expires. */
    claim(code: string, name: string): { device: DeviceView; token: string } {
      const at = now();
      const wanted = hash(code);
      const pairing = pairings.find((p) => p.codeHash === wanted && p.expiresAt > at);
      if (!pairing) throw new RelayHttpError(401, 'pairing_used', 'This pairing link was already used or has expired: make a new one on a device that syncs.');
      pairings = pairings.filter((p) => p !== pairing && p.expiresAt > at);
      return enrol(name);
    },
    list(): DeviceView[] {
      return [...devices.values()].sort((a, b) => b.lastSeenAt - a.lastSeenAt).map(view);
    },
    rename(id: string, name: string): DeviceView {
      const record = [...devices.values()].find((d) => d.id === id);
      if (!record) throw new RelayHttpError(404, 'not_found', 'No such device.');
      record.name = name;
      save();
      return view(record);
    },
    /** Takes a device's token away at once: its next call is refused. */
    remove(id: string): void {
      const record = [...devices.values()].find((d) => d.id === id);
      if (!record) throw new RelayHttpError(404, 'not_found', 'No such device: it was removed already.');
      devices.delete(record.tokenHash);
      save();
    },
    /** Last seen times not yet on disk are written (the relay is closing). */
    flush(): void {
      if (file) save();
    },
  };
}

export type DeviceRegistry = ReturnType<typeof createDeviceRegistry>;
