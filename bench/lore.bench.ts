import { performance } from 'node:perf_hooks';
import { activateLore, type LoreEntry } from '../src/engine/lore/activation.ts';
import { loadTokenCounter } from '../src/engine/turn/tokens.ts';
import { fmt, median, printTable } from './table.ts';

const WORDS = 'the storm broke over the harbour while Mira held the lantern high and laughed at the thunder near the old lighthouse'.split(' ');

/** Lorebook activation: a 500-entry book scanned over the 20 newest messages (target ≤ 2 ms). */
export async function benchLore(): Promise<void> {
  const count = await loadTokenCounter();
  const entries: LoreEntry[] = Array.from({ length: 500 }, (_, i) => ({
    position: i,
    keys: i % 10 === 0 ? [`/lanterns?\\s+${i}/i`] : [`keyword${i}`, `alias${i}`],
    secondaryKeys: i % 7 === 0 ? ['storm', 'night'] : [],
    selective: i % 7 === 0,
    logic: 'and_any',
    content: `Entry ${i}: ${WORDS.join(' ')}`,
    enabled: i % 50 !== 0,
    constant: i % 100 === 1,
    caseSensitive: false,
    wholeWords: i % 3 === 0,
    scanDepth: null,
    insertionOrder: i % 17,
    placement: 'before_char',
    probability: 60,
    useProbability: i % 11 === 0,
    preventRecursion: false,
    excludeRecursion: false,
    ignoreBudget: false,
  }));
  const messages = Array.from({ length: 20 }, (_, i) => `${WORDS.join(' ')} keyword${i * 25} alias${i * 13} lantern ${i * 10}`);
  const run = (recursive: boolean) => {
    const book = { entries, scanDepth: 20, tokenBudget: 2_048, recursive, maxRecursion: 3 };
    let fired = activateLore(book, messages, { seed: 'warm', count });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      fired = activateLore(book, messages, { seed: `turn-${i}`, count });
      times.push(performance.now() - t);
    }
    return { fired: fired.length, times };
  };
  const flat = run(false);
  const deep = run(true);

  // Hostile expressions (issue 37): 500 regex keys, the classic exponential ones among them, on a
  // 100,000-character message.
  const hostile = ['/a*a*a*a*a*a*c/i', '/(a+)+$/', '/(a|aa)*b/', '/(x+x+)+y/', '/(\\w+\\s?)*$/'];
  const regexEntries: LoreEntry[] = entries.map((e, i) => ({ ...e, keys: [i < hostile.length ? hostile[i]! : `/(storm|lantern)s?\\s+${i}\\b/i`], secondaryKeys: [], selective: false, constant: false, enabled: true, useProbability: false }));
  const long = [`${'a'.repeat(100_000)}b`];
  const regexBook = { entries: regexEntries, scanDepth: 1, tokenBudget: 2_048, recursive: false, maxRecursion: 0 };
  activateLore(regexBook, long, { seed: 'warm', count });
  const regexTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    activateLore(regexBook, long, { seed: `turn-${i}`, count });
    regexTimes.push(performance.now() - t);
  }
  printTable('Lorebook activation (Node; the same engine code runs in the worker)', [
    ['book', '500 entries (plain, whole-word, regex and selective keys; budget 2,048 tokens)'],
    ['scanned', '20 newest messages'],
    ['one pass: fired, median / max (target ≤ 2 ms)', `${fmt(flat.fired)}; ${fmt(median(flat.times), 2)} / ${fmt(Math.max(...flat.times), 2)} ms`],
    ['recursive (3 passes): fired, median / max', `${fmt(deep.fired)}; ${fmt(median(deep.times), 2)} / ${fmt(Math.max(...deep.times), 2)} ms`],
    ['500 regex keys (5 exponential on a backtracking engine) on a 100,000-character message, median / max (target < 50 ms)', `${fmt(median(regexTimes), 1)} / ${fmt(Math.max(...regexTimes), 1)} ms`],
  ]);
}
