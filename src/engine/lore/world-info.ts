import { LOGICS, type Lorebook, type LoreEntry } from './activation.ts';

/**
 * A lorebook as SillyTavern's world info file: its entries keyed by uid with their settings at each
 * entry's top level, and the book's scan settings beside them (which the reader here takes back;
 * SillyTavern keeps its own). Reading the file again (`readLorebookFile`) gives the same entries.
 */
export function toWorldInfo(book: { name: string; settings: Omit<Lorebook, 'entries'>; entries: readonly LoreEntry[] }): string {
  const entries = Object.fromEntries(
    book.entries.map((entry, uid) => [
      String(uid),
      {
        uid,
        key: entry.keys,
        keysecondary: entry.secondaryKeys,
        comment: entry.name ?? '',
        content: entry.content,
        constant: entry.constant,
        selective: entry.selective,
        selectiveLogic: LOGICS.indexOf(entry.logic),
        order: entry.insertionOrder,
        position: entry.placement === 'after_char' ? 1 : 0,
        disable: !entry.enabled,
        probability: entry.probability,
        useProbability: entry.useProbability,
        scanDepth: entry.scanDepth,
        caseSensitive: entry.caseSensitive,
        matchWholeWords: entry.wholeWords,
        preventRecursion: entry.preventRecursion,
        excludeRecursion: entry.excludeRecursion,
        ignoreBudget: entry.ignoreBudget,
        displayIndex: uid,
      },
    ]),
  );
  return `${JSON.stringify(
    { name: book.name, scan_depth: book.settings.scanDepth, token_budget: book.settings.tokenBudget, recursive_scanning: book.settings.recursive, entries },
    null,
    2,
  )}\n`;
}

/** A new entry as the editor opens it: no keys yet, on, before the character, SillyTavern's defaults. */
export function blankEntry(position: number): LoreEntry {
  return {
    position,
    keys: [],
    secondaryKeys: [],
    selective: false,
    logic: 'and_any',
    content: '',
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
  };
}
