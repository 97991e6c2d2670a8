import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { fromBase64 } from '../base64.ts';
import { defineEvent } from './define.ts';

/** The formats a picture is stored in (the browser makes WebP, or JPEG where it cannot). */
export const IMAGE_TYPES = ['image/webp', 'image/jpeg', 'image/png'] as const;
/** A stored picture is already cropped and resized: 512 px, a few dozen kilobytes. */
export const MAX_IMAGE_BYTES = 1024 * 1024;

export { imageHash } from './fields.ts';
import { imageHash } from './fields.ts';

/** The first bytes each format starts with: a payload that says WebP holds WebP. */
function looksLike(mime: string, bytes: Uint8Array): boolean {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (mime === 'image/png') return bytes[0] === 0x89 && ascii(1, 4) === 'PNG';
  if (mime === 'image/jpeg') return bytes[0] === 0xff && bytes[1] === 0xd8;
  return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
}

export const hashOf = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

/**
 * A picture (an avatar). Its name is the hash of its bytes, checked here: a backup cannot name one
 * picture and carry another, and adding the same picture twice keeps the first.
 */
export const imageAdded = defineEvent({
  kind: 'image_added',
  writes: ['images'],
  scope: 'global',
  schema: z
    .object({
      hash: imageHash,
      mime: z.enum(IMAGE_TYPES),
      width: z.number().int().min(1).max(4_096),
      height: z.number().int().min(1).max(4_096),
      data: z.string().max(Math.ceil(MAX_IMAGE_BYTES / 3) * 4),
    })
    .superRefine((p, ctx) => {
      const bytes = fromBase64(p.data);
      if (!bytes || bytes.length === 0) return void ctx.addIssue({ code: 'custom', path: ['data'], message: 'is not base64 picture data' });
      if (!looksLike(p.mime, bytes)) ctx.addIssue({ code: 'custom', path: ['data'], message: `is not ${p.mime.slice(6).toUpperCase()} data` });
      if (hashOf(bytes) !== p.hash) ctx.addIssue({ code: 'custom', path: ['hash'], message: 'does not match the picture' });
    }),
  apply(db, { seq, payload: p }) {
    db.run('INSERT INTO images (hash, seq, mime, width, height, size) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING', [
      p.hash,
      seq,
      p.mime,
      p.width,
      p.height,
      Math.floor((p.data.length * 3) / 4),
    ]);
  },
});
