const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Standard base64 (with its padding) as bytes; null when it is not valid base64. The engine has no atob. */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n = [0, 1, 2, 3].map((k) => VALUES.get(text[i + k]!) ?? 0);
    const triple = (n[0]! << 18) | (n[1]! << 12) | (n[2]! << 6) | n[3]!;
    for (const shift of [16, 8, 0]) if (at < bytes.length) bytes[at++] = (triple >> shift) & 0xff;
  }
  return bytes;
}

/** Bytes as standard base64, with its padding. */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const triple = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = [18, 12, 6, 0].map((shift) => ALPHABET[(triple >> shift) & 63]!);
    const kept = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    out += chars.slice(0, kept).join('') + '='.repeat(4 - kept);
  }
  return out;
}
