import { describe, expect, it } from 'vitest';
import { scrubber, streamScrubber } from '../../relay/redact.ts';

const KEY = 'rc_Live/Key+0123456789abcdefXYZ';
const json = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const percent = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Every form a key could take in text a client decodes, each inside ordinary words. */
const forms: [string, string][] = [
  ['plain', KEY],
  ['upper-case', KEY.toUpperCase()],
  ['lower-case', KEY.toLowerCase()],
  ['JSON \\u escapes', json(KEY)],
  ['JSON escapes for half of it', json(KEY.slice(0, 10)) + KEY.slice(10)],
  ['JSON escaped slash', KEY.replace('/', '\\/')],
  ['percent-encoded', percent(KEY)],
  ['percent-encoded in lower-case hex', percent(KEY).toLowerCase()],
  ['encodeURIComponent', encodeURIComponent(KEY)],
  ['JS \\x escapes', [...KEY].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join('')],
  ['base64', Buffer.from(KEY).toString('base64')],
  ['base64 one byte in', Buffer.from(`a${KEY}`).toString('base64')],
  ['base64 two bytes in', Buffer.from(`ab${KEY} and more`).toString('base64')],
  ['base64url', Buffer.from(`xy${KEY}`).toString('base64url')],
  ['base64 of the upper-case key', Buffer.from(KEY.toUpperCase()).toString('base64')],
];

/** What a client could get back from the text: the key decoded in every way these forms undo. */
function decodings(text: string): string[] {
  const out = [text, text.toLowerCase()];
  try {
    out.push(JSON.parse(`"${text}"`));
  } catch {
    // not a JSON string
  }
  try {
    out.push(decodeURIComponent(text));
  } catch {
    // not percent-encoding
  }
  out.push(text.replace(/\\x([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  for (const alphabet of ['base64', 'base64url'] as const) {
    for (const word of text.match(/[A-Za-z0-9+/_=-]{8,}/g) ?? []) out.push(Buffer.from(word, alphabet).toString('latin1'));
  }
  return out;
}

describe('the key scrubber', () => {
  const scrub = scrubber([KEY]);
  it.each(forms)('redacts the key written %s', (_name, written) => {
    const text = `before ${written} after`;
    const out = scrub(text);
    expect(out).toContain('[redacted]');
    for (const decoded of decodings(out)) expect(decoded.toLowerCase()).not.toContain(KEY.toLowerCase().slice(4, 20));
  });

  it('leaves ordinary text as it was', () => {
    const text = 'Mira lifts the lantern: "Rough night, isn\'t it?" %20 \\u0041 QUJD';
    expect(scrub(text)).toBe(text);
  });

  it.each(forms)('redacts the key written %s when it arrives a few characters at a time', (_name, written) => {
    for (const size of [1, 3, 7]) {
      const stream = streamScrubber([KEY]);
      const text = `before ${written} after`;
      let out = '';
      for (let i = 0; i < text.length; i += size) out += stream.push(text.slice(i, i + size));
      out += stream.end();
      expect(out).toContain('[redacted]');
      for (const decoded of decodings(out)) expect(decoded.toLowerCase()).not.toContain(KEY.toLowerCase().slice(4, 20));
    }
  });

  it('holds back only what could begin the key: other text flows as it comes', () => {
    const stream = streamScrubber([KEY]);
    expect(stream.push('The fire pops. ')).toBe('The fire pops. ');
    expect(stream.push('Mira waits')).toBe('Mira waits');
    expect(stream.push(' by the door rc_Li')).toBe(' by the door ');
    expect(stream.push('ght is on.')).toBe('rc_Light is on.');
  });
});
