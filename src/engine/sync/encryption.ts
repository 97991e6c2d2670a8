import { fromBase64, toBase64 } from '../base64.ts';
import { SyncError } from './sync-error.ts';

/**
 * End-to-end encryption of what the sync server holds: each event's content sealed with AES-GCM
 * under a key derived from the player's passphrase (PBKDF2, SHA-256). The server keeps only the
 * salt and a sealed check phrase (`_local/roleplay-engine-encryption`), which tells a device
 * whether its passphrase is the right one before it writes anything.
 */
export interface Sealer {
  seal(plain: string): Promise<{ iv: string; data: string }>;
  open(sealed: { iv: string; data: string }): Promise<string>;
  /**
   * Mixed into each revision's hash: a plain content hash would let the server test guesses at
   * an event's content; with this, only devices holding the passphrase can.
   */
  revisionSecret: string;
}

export interface EncryptionRecord {
  salt: string;
  check: { iv: string; data: string };
  iterations: number;
}

export const ENCRYPTION_DOC = 'roleplay-engine-encryption';
const CHECK = 'roleplay-engine: the passphrase is right';
const ITERATIONS = 310_000;

export class WrongPassphraseError extends SyncError {
  override name = 'WrongPassphraseError';
  constructor(message: string) {
    super(message, undefined, false, 'passphrase-wrong');
  }
}

/** The AES key and the revision secret, both from the passphrase (512 bits of PBKDF2, split). */
async function keyFor(passphrase: string, salt: Uint8Array, iterations: number): Promise<{ key: CryptoKey; revisionSecret: string }> {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveBits']);
  const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', salt: new Uint8Array(salt), iterations, hash: 'SHA-256' }, base, 512));
  const key = await crypto.subtle.importKey('raw', bits.slice(0, 32), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  return { key, revisionSecret: toBase64(bits.slice(32)) };
}

function sealerWith({ key, revisionSecret }: { key: CryptoKey; revisionSecret: string }, randomBytes: (n: number) => Uint8Array): Sealer {
  return {
    revisionSecret,
    async seal(plain) {
      const iv = new Uint8Array(randomBytes(12));
      const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(plain));
      return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
    },
    async open(sealed) {
      const iv = fromBase64(sealed.iv);
      const data = fromBase64(sealed.data);
      if (!iv || !data) throw new SyncError('A sealed event on the sync server is damaged.', undefined, false, 'server-data');
      try {
        return new TextDecoder().decode(new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(iv) }, key, new Uint8Array(data))));
      } catch {
        throw new WrongPassphraseError('An event on the sync server cannot be opened with this passphrase; nothing was written.');
      }
    },
  };
}

/** A new record for a database encrypted from now on, with the sealer for it. */
export async function newEncryption(passphrase: string, randomBytes: (n: number) => Uint8Array): Promise<{ record: EncryptionRecord; sealer: Sealer }> {
  const salt = randomBytes(16);
  const sealer = sealerWith(await keyFor(passphrase, salt, ITERATIONS), randomBytes);
  return { record: { salt: toBase64(salt), check: await sealer.seal(CHECK), iterations: ITERATIONS }, sealer };
}

/** The sealer for an encrypted database, or a WrongPassphraseError when the passphrase is not its own. */
export async function openEncryption(passphrase: string, record: EncryptionRecord, randomBytes: (n: number) => Uint8Array): Promise<Sealer> {
  const salt = fromBase64(record.salt);
  if (!salt || !Number.isInteger(record.iterations) || record.iterations < 1) throw new SyncError('The sync database\'s encryption record is damaged.', undefined, false, 'server-data');
  const sealer = sealerWith(await keyFor(passphrase, salt, record.iterations), randomBytes);
  let check: string;
  try {
    check = await sealer.open(record.check);
  } catch {
    throw new WrongPassphraseError('This passphrase is not the one the sync database was encrypted with; nothing was written.');
  }
  if (check !== CHECK) throw new WrongPassphraseError('This passphrase is not the one the sync database was encrypted with; nothing was written.');
  return sealer;
}
