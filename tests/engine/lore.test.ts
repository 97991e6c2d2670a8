import { describe, expect, it } from 'vitest';
import { activateLore, type LoreEntry, type Lorebook } from '../../src/engine/lore/activation.ts';

let next = 0;
const entry = (over: Partial<LoreEntry>): LoreEntry => ({
  position: next++,
  keys: [],
  secondaryKeys: [],
  selective: false,
  logic: 'and_any',
  content: 'lore',
  enabled: true,
  constant: false,
  caseSensitive: false,
  wholeWords: false,
  scanDepth: null,
  insertionOrder: 100,
  placement: 'before_char',
  probability: 100,
  useProbability: false,
  preventRecursion: false,
  excludeRecursion: false,
  ignoreBudget: false,
  ...over,
});
const book = (entries: LoreEntry[], over: Partial<Lorebook> = {}): Lorebook => ({ entries, scanDepth: 2, tokenBudget: 1_000, recursive: false, maxRecursion: 3, ...over });
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const fire = (b: Lorebook, messages: string[], seed = 'turn-1') => activateLore(b, messages, { seed, count: words }).map((f) => f.entry.content);

describe('lorebook activation', () => {
  it('fires on a primary key in the scanned messages, case-insensitively unless asked, whole words when asked, regex keys too', () => {
    const b = book([
      entry({ keys: ['Kraken'], content: 'kraken lore' }),
      entry({ keys: ['Port'], caseSensitive: true, content: 'Port lore' }),
      entry({ keys: ['art'], wholeWords: true, content: 'art lore' }),
      entry({ keys: ['/light\\s?house/i'], content: 'lighthouse lore' }),
      entry({ keys: ['/[unclosed/'], content: 'never' }),
    ]);
    expect(fire(b, ['A KRAKEN rises near the port, a party by the Light house.'])).toEqual(['kraken lore', 'lighthouse lore']);
    expect(fire(b, ['Port of call; fine art.'])).toEqual(['Port lore', 'art lore']);
  });

  it('combines secondary keys by the four logics', () => {
    const e = (logic: LoreEntry['logic'], content: string) => entry({ keys: ['ship'], secondaryKeys: ['storm', 'night'], selective: true, logic, content });
    const b = book([e('and_any', 'AND ANY'), e('and_all', 'AND ALL'), e('not_any', 'NOT ANY'), e('not_all', 'NOT ALL')]);
    expect(fire(b, ['The ship in the storm.'])).toEqual(['AND ANY', 'NOT ALL']);
    expect(fire(b, ['The ship in the storm at night.'])).toEqual(['AND ANY', 'AND ALL']);
    expect(fire(b, ['The ship in calm water.'])).toEqual(['NOT ANY', 'NOT ALL']);
  });

  it('scans only its depth of the newest messages; constant entries always fire; disabled ones never', () => {
    const b = book([
      entry({ keys: ['old'], content: 'book depth' }),
      entry({ keys: ['old'], scanDepth: 3, content: 'own depth' }),
      entry({ constant: true, content: 'always' }),
      entry({ constant: true, enabled: false, content: 'never' }),
      entry({ keys: ['new'], enabled: false, content: 'never either' }),
    ]);
    expect(fire(b, ['old news', 'something', 'new things'])).toEqual(['own depth', 'always']);
  });

  it('orders by insertion order, keeps within the token budget from the highest order down, constant entries may ignore it', () => {
    const b = book(
      [
        entry({ keys: ['a'], insertionOrder: 10, content: 'one two three' }),
        entry({ keys: ['a'], insertionOrder: 30, content: 'four five six' }),
        entry({ keys: ['a'], insertionOrder: 20, content: 'seven eight nine ten' }),
        entry({ constant: true, ignoreBudget: true, insertionOrder: 5, content: 'kept whatever it costs' }),
      ],
      { tokenBudget: 7 },
    );
    expect(fire(b, ['a'])).toEqual(['kept whatever it costs', 'seven eight nine ten', 'four five six']);
  });

  it('scans fired content again, up to the recursion cap, unless an entry prevents or excludes it', () => {
    const chain = [
      entry({ keys: ['ship'], content: 'The ship has a captain.' }),
      entry({ keys: ['captain'], content: 'The captain owns a parrot.' }),
      entry({ keys: ['parrot'], content: 'The parrot knows a secret.' }),
      entry({ keys: ['secret'], content: 'The secret is a map.' }),
      entry({ keys: ['map'], content: 'Too deep.' }),
      entry({ keys: ['captain'], excludeRecursion: true, content: 'Only from the story.' }),
    ];
    expect(fire(book(chain), ['A ship.'])).toEqual(['The ship has a captain.']);
    expect(fire(book(chain, { recursive: true }), ['A ship.'])).toEqual(['The ship has a captain.', 'The captain owns a parrot.', 'The parrot knows a secret.', 'The secret is a map.']);
    const stop = [entry({ keys: ['ship'], preventRecursion: true, content: 'The ship has a captain.' }), entry({ keys: ['captain'], content: 'no' })];
    expect(fire(book(stop, { recursive: true }), ['A ship.'])).toEqual(['The ship has a captain.']);
  });

  it('rolls probability from the turn: the same turn always sees the same lore, other turns differ', () => {
    const b = book(Array.from({ length: 40 }, (_, i) => entry({ keys: ['sea'], useProbability: true, probability: 50, content: `e${i}` })));
    const first = fire(b, ['the sea'], 'turn-A');
    expect(fire(b, ['the sea'], 'turn-A')).toEqual(first);
    expect(first.length).toBeGreaterThan(8);
    expect(first.length).toBeLessThan(32);
    expect(fire(b, ['the sea'], 'turn-B')).not.toEqual(first);
  });
});

describe('hostile expressions', () => {
  it('a key that could take exponential time never matches, and scanning with it returns at once; plain expressions still work', async () => {
    const { riskyPattern } = await import('../../src/engine/lore/activation.ts');
    expect(['(a+)+$', '(a|aa)*b', '(\\w+\\s?)*$', '(.*a){20}', '(x+x+)+y', '(a)\\1'].map(riskyPattern)).toEqual([true, true, true, true, true, true]);
    expect(['dragons?', '\\bsea (serpent|monster)s?\\b', '[a-z]+ing', 'a{2}', '(ab)?c', '[(+)]+'].map(riskyPattern)).toEqual([false, false, false, false, false, false]);
    const evil = entry({ keys: ['/(a+)+$/'], content: 'never' });
    const fine = entry({ keys: ['/sea (serpent|monster)s?/i'], content: 'fine' });
    const book: Lorebook = { entries: [evil, fine], scanDepth: 1, tokenBudget: 1_000, recursive: false, maxRecursion: 0 };
    const fired = activateLore(book, [`${'a'.repeat(40)}! A Sea Serpent.`], { seed: 's', count: (t) => t.length });
    expect(fired.map((f) => f.entry.content)).toEqual(['fine']);
  });
});

describe('finding plain keys', () => {
  it('fires exactly when the text holds the key, ignoring case, whatever the letters (the quick pre-check never hides a match)', async () => {
    const fc = await import('fast-check');
    const letters = fc.constantFrom(...'abAB é-ÉΣσς日本 '.split(''));
    fc.assert(
      fc.property(fc.array(letters, { minLength: 1, maxLength: 6 }), fc.array(letters, { maxLength: 60 }), (keyChars, textChars) => {
        const key = keyChars.join('');
        const text = textChars.join('');
        if (!key.trim()) return;
        const book: Lorebook = { entries: [entry({ keys: [key], content: 'hit' })], scanDepth: 1, tokenBudget: 1_000, recursive: false, maxRecursion: 0 };
        const fired = activateLore(book, [text], { seed: 's', count: () => 1 }).length === 1;
        expect(fired).toBe(text.toLowerCase().includes(key.trim().toLowerCase()));
      }),
      { numRuns: 2_000 },
    );
  });
});
