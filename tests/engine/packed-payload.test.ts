import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EXTENDED, packPayload, SHORT, unpackPayload } from '../../src/engine/log/packed-payload.ts';

const reply = JSON.stringify({
  turnId: '019b76da-a800-7000-8000-00143cccbf72',
  speaker: '019b76da-a800-7000-8000-0000096d1819',
  model: 'dphn/Dolphin-Mistral-24B-Venice-Edition',
  text: 'Mira grins and pockets the compass.',
  truncated: false,
  reason: null,
  usage: { promptTokens: 1234, completionTokens: 56 },
  error: null,
});

/** A deterministic stream of numbers, so a failing case can be found again. */
function numbers(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

const PIECES = [
  '019b76da-a800-7000-8000-00143cccbf72', // an id, packed
  '019B76DA-A800-7000-8000-00143CCCBF72', // an id in capitals, kept as it is
  '019b76da-a800-7000-8000-00143cccbf7', // one digit short
  'turnId', 'speaker', '","text":"', ':true,', '"you":true', 'narration', 'dialogue',
  '日本語の物語', '故事', '😀', 'a line long enough to copy', 'a line long enough to copy, and more', 'é', '\u0001', '\n', '\t', '"', '\\', '\u2028', ' ', 'x',
];

function randomValue(next: (below: number) => number, depth = 0): unknown {
  const pick = next(depth > 2 ? 4 : 7);
  if (pick === 0) return next(2) === 0;
  if (pick === 1) return null;
  if (pick === 2) return next(1_000_000) / (next(3) + 1) - 500;
  if (pick === 3) return Array.from({ length: next(6) }, () => PIECES[next(PIECES.length)]).join('');
  if (pick === 4) return Array.from({ length: next(4) }, () => randomValue(next, depth + 1));
  const keys = ['turnId', 'speaker', 'model', 'text', 'segments', 'type', 'you', 'source', 'target', PIECES[next(PIECES.length)]!];
  return Object.fromEntries(Array.from({ length: next(5) }, () => [keys[next(keys.length)]!, randomValue(next, depth + 1)]));
}

describe("an event's packed payload", () => {
  it('reads back byte for byte, for any JSON the log may hold', () => {
    const next = numbers(38);
    for (let i = 0; i < 3_000; i++) {
      const json = JSON.stringify(randomValue(next));
      expect(unpackPayload(packPayload(json))).toBe(json);
    }
    // JSON not written by JSON.stringify: whitespace between tokens, escapes as another app wrote them.
    for (const json of ['{ "turnId" :\n\t"019b76da-a800-7000-8000-00143cccbf72" ,\r\n "a": [1, 2.50, -0e0] }', '{"text":"\\u00e9\\/\\u0001"}', '[]', '"019b76da-a800-7000-8000-00143cccbf72"']) {
      expect(unpackPayload(packPayload(json))).toBe(json);
    }
  });

  it('keeps a reply in under half its bytes: each id in 17, each common run of keys in one or two', () => {
    const packed = packPayload(reply);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect((packed as Uint8Array).length).toBeLessThan(Buffer.byteLength(reply) / 2);
    // The words are there as they are: only ids and keys are marked.
    expect(Buffer.from(packed as Uint8Array).toString('utf8')).toContain('Mira grins and pockets the compass.');
  });

  it("writes a string found whole earlier in the payload as a copy of it: a player's line and its segments", () => {
    const line = JSON.stringify({ turnId: '019b76da-a800-7000-8000-0015c8167338', text: 'I lift the lantern and look out to sea.', segments: [{ type: 'narration', text: 'I lift the lantern and look out to sea.' }] });
    const packed = packPayload(line) as Uint8Array;
    expect(unpackPayload(packed)).toBe(line);
    expect(Buffer.from(packed).toString('latin1').split('I lift the lantern').length - 1).toBe(1);
    expect(packed.length).toBeLessThan(Buffer.byteLength(line) - 2 * 39);
    // Words that only start alike, or repeat within a longer string, are written out.
    const alike = JSON.stringify({ a: 'The storm broke over the harbour', b: 'The storm broke over the bay' });
    expect(unpackPayload(packPayload(alike))).toBe(alike);
    expect(Buffer.from(packPayload(alike) as Uint8Array).toString('latin1')).toContain('The storm broke over the bay');
  });

  it('keeps a payload holding a byte the marks use as its text', () => {
    const raw = '{"text":"a\u0001b"}';
    expect(packPayload(raw)).toBe(raw);
    expect(unpackPayload(raw)).toBe(raw);
  });

  it('refuses bytes that are not a packed payload, rather than read them as another', () => {
    expect(() => unpackPayload(new Uint8Array([0x7b, 0x00, 0x05, 0x02]))).toThrow(/copies what it has not written/);
    expect(() => unpackPayload(new Uint8Array([0x7b, 0x00, 0x01]))).toThrow(/ends inside a copy/);
    expect(() => unpackPayload(new Uint8Array([0x7b, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow(/more bytes than any event holds/);
    expect(() => unpackPayload(new Uint8Array([0x1f, 250]))).toThrow(/unknown mark/);
    expect(() => unpackPayload(new Uint8Array([0x22, 0x01, 0xab, 0xcd]))).toThrow(/ends inside an id/);
  });

  it('has the dictionary every database written since was packed with (entries are only ever appended)', () => {
    expect(SHORT).toHaveLength(26);
    expect(new Set([...SHORT, ...EXTENDED]).size).toBe(SHORT.length + EXTENDED.length);
    expect(EXTENDED.length).toBeLessThanOrEqual(256);
    // Changing or removing an entry would read every packed payload written with it wrongly: this
    // digest may change only by appending to EXTENDED, and then the test names the new length.
    const digestOf = (entries: readonly string[]) => createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
    expect(digestOf(SHORT)).toBe('f9639ad5a9b8848b');
    expect(digestOf(EXTENDED.slice(0, 70))).toBe('d712ce38516f0ae7');
  });
});

describe('packing text made to defeat it', () => {
  it('gives up looking for copies once a payload has cost a million comparisons, and still reads back', () => {
    // Strings that nearly repeat the ones before (all but their last four bytes): each search for
    // one costs ~2 million comparisons, 4 billion over a 4 MB payload, without a bound. Past the
    // bound, a string that does repeat is written out.
    const nearly = Array.from({ length: 4 }, (_, i) => 'a'.repeat(1_996) + i.toString(36).padStart(4, '0'));
    const json = JSON.stringify([...nearly, nearly[3]]);
    const packed = packPayload(json) as Uint8Array;
    expect(unpackPayload(packed)).toBe(json);
    expect(Buffer.from(packed).toString('latin1').split(nearly[3]!).length - 1).toBe(2);
    // The same repeat, found while the search is cheap, is a copy.
    const cheap = JSON.stringify([nearly[3], 'x', nearly[3]]);
    expect(Buffer.from(packPayload(cheap) as Uint8Array).toString('latin1').split(nearly[3]!).length - 1).toBe(1);
  });
});
