import { blankEntry } from '../../src/engine/lore/world-info.ts';
import { describe, expect, it } from 'vitest';
import { activateLore, type LoreEntry, type Lorebook } from '../../src/engine/lore/activation.ts';

let next = 0;
const entry = (over: Partial<LoreEntry>): LoreEntry => ({ ...blankEntry(next++), content: 'lore', ...over });
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

  it('"whole words" makes sense in scripts without spaces, and lets a Korean key carry its particle', () => {
    const b = book([
      entry({ keys: ['灯台'], wholeWords: true, content: 'lighthouse (ja)' }),
      entry({ keys: ['台'], wholeWords: true, content: 'stand (ja), only as a word' }),
      entry({ keys: ['钥匙'], wholeWords: true, content: 'key (zh)' }),
      entry({ keys: ['은열쇠'], wholeWords: true, content: 'silver key (ko)' }),
      entry({ keys: ['열쇠'], wholeWords: true, content: 'key (ko), only starting a word' }),
      entry({ keys: ['art'], wholeWords: true, content: 'art' }),
    ]);
    // Before, no whole-word key in these scripts ever fired: every neighbour is a letter.
    expect(fire(b, ['ミラは古い灯台で銀の鍵を見つけた。'])).toEqual(['lighthouse (ja)']);
    expect(fire(b, ['米拉在旧灯塔里找到了银钥匙。'])).toEqual(['key (zh)']);
    expect(fire(b, ['미라는 오래된 등대에서 은열쇠를 찾았다.'])).toEqual(['silver key (ko)']);
    expect(fire(b, ['열쇠를 잃었다. A party.'])).toEqual(['key (ko), only starting a word']);
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
  it('a key written to take exponential time runs in time proportional to the text, and matches as an expression should', () => {
    const keys = ['/a*a*a*a*a*a*c/i', '/(a+)+$/', '/(a|aa)*b/', '/(x+x+)+y/', '/(\\w+\\s?)*$/'];
    const book: Lorebook = { entries: keys.map((key, i) => entry({ keys: [key], content: `e${i}` })), scanDepth: 1, tokenBudget: 1_000, recursive: false, maxRecursion: 0 };
    // On a backtracking engine the first key alone took 143 s on 110 a's; here, 100,000.
    const fired = activateLore(book, [`${'a'.repeat(100_000)}b!`], { seed: 's', count: () => 1 });
    // (a|aa)*b finds its b; (\w+\s?)*$ matches the empty end; the others cannot match.
    expect(fired.map((f) => f.entry.content).sort()).toEqual(['e2', 'e4']);
    const sea = entry({ keys: ['/sea (serpent|monster)s?/i'], content: 'fine' });
    expect(activateLore({ ...book, entries: [sea] }, ['A Sea Serpent.'], { seed: 's', count: () => 1 }).map((f) => f.entry.content)).toEqual(['fine']);
  });

  it('a key the linear-time engine cannot run (lookaround, back-references) never fires, and says why', async () => {
    const { keyProblem } = await import('../../src/engine/lore/activation.ts');
    expect(keyProblem('/(?<=the )sea/')).toMatch(/lookahead and lookbehind/);
    expect(keyProblem('/sea(?! serpent)/')).toMatch(/lookahead and lookbehind/);
    expect(keyProblem('/(a)\\1/')).toMatch(/back-references/);
    expect(keyProblem('/[unclosed/')).toMatch(/not an expression the lore engine can read/);
    expect(keyProblem('/sea/q')).toMatch(/Unknown flag "q"/);
    for (const fine of ['/dragons?/i', '/\\bsea\\b/', 'plain key', '/[\\p{L}]+ing/u']) expect(keyProblem(fine)).toBeNull();
    const refused = entry({ keys: ['/(?<=the )sea/'], content: 'never' });
    expect(activateLore({ entries: [refused], scanDepth: 1, tokenBudget: 1_000, recursive: false, maxRecursion: 0 }, ['the sea'], { seed: 's', count: () => 1 })).toEqual([]);
  });
});

describe('the literal pre-check before an expression', () => {
  it('requires nothing of a pattern with a group of flags alone, which a quantifier reaches past (fast-check found `a(?)?`, which matches nothing at all)', async () => {
    const { RE2JS } = await import('re2js');
    const { requiredLiterals } = await import('../../src/engine/lore/activation.ts');
    expect(RE2JS.compile(RE2JS.translateRegExp('a(?)?')).test('')).toBe(true);
    expect(requiredLiterals('a(?)?')).toEqual([]);
    expect(requiredLiterals('(?i)Mira')).toEqual([]);
    // A group with its own flags and content is a group: the stretch before it stays required.
    expect(requiredLiterals('key(?i:s)?')).toEqual(['key']);
  });


  it('never hides a match: whatever the expression finds contains every stretch it requires', async () => {
    const fc = await import('fast-check');
    const { RE2JS } = await import('re2js');
    const { requiredLiterals } = await import('../../src/engine/lore/activation.ts');
    const piece = fc.constantFrom('a', 'b', 'ab', 'c', '?', '*', '+', '{0,2}', '{2}', '(', ')', '|', '.', '^', '$', '\\b', '\\s', '[ab]', '\\.', ' ');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), fc.array(fc.constantFrom('a', 'b', 'c', ' ', '.'), { maxLength: 30 }), (pieces, chars) => {
        const pattern = pieces.join('');
        let compiled;
        try {
          compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
        } catch {
          return;
        }
        const text = chars.join('');
        if (compiled.test(text)) for (const literal of requiredLiterals(pattern)) expect([pattern, text, text.includes(literal)]).toEqual([pattern, text, true]);
      }),
      { numRuns: 3_000 },
    );
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
