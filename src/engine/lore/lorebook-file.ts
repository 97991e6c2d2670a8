import { bookOf } from '../cards/card-json.ts';
import { CardError, jsonTooDeep, MAX_JSON_DEPTH } from '../cards/errors.ts';
import { lorebookOf, type Lorebook } from './activation.ts';

/** Where a standalone lorebook came from. */
export type LorebookFormat = 'sillytavern' | 'lorebook_v3' | 'character_book' | 'app';

export interface LorebookFile {
  name: string;
  format: LorebookFormat;
  book: Lorebook;
}

export const MAX_LOREBOOK_ENTRIES = 5_000;
export const MAX_LORE_CONTENT = 50_000;

/**
 * SillyTavern keeps an entry's settings at its top level (`selectiveLogic`, `position`,
 * `matchWholeWords`…); a card's book keeps them in `extensions`, which is what activation reads.
 */
function fromWorldInfo(entry: Record<string, unknown>): Record<string, unknown> {
  const extensions = typeof entry.extensions === 'object' && entry.extensions !== null ? (entry.extensions as Record<string, unknown>) : {};
  return {
    ...entry,
    extensions: {
      ...extensions,
      selectiveLogic: entry.selectiveLogic,
      position: entry.position,
      probability: entry.probability,
      useProbability: entry.useProbability,
      scan_depth: entry.scanDepth,
      case_sensitive: entry.caseSensitive,
      match_whole_words: entry.matchWholeWords,
      prevent_recursion: entry.preventRecursion,
      exclude_recursion: entry.excludeRecursion,
      ignore_budget: entry.ignoreBudget,
    },
  };
}

/**
 * A standalone lorebook file: SillyTavern's world info (`entries` keyed by uid, settings at each
 * entry's top level), a V3 `lorebook_v3`, or a bare `character_book`. A file that is none of these
 * is refused with what it lacks.
 */
export function readLorebookFile(text: string, fileName = ''): LorebookFile {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CardError(`This lorebook is not JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CardError('This is not a lorebook: it holds no entries.');
  if (jsonTooDeep(value)) throw new CardError(`This lorebook's JSON nests more than ${MAX_JSON_DEPTH} levels deep, which no lorebook does: it is refused.`);
  const root = value as Record<string, unknown>;
  let data: Record<string, unknown>;
  let format: LorebookFormat;
  if (root.spec === 'lorebook_v3' && typeof root.data === 'object' && root.data !== null) {
    data = root.data as Record<string, unknown>;
    format = 'lorebook_v3';
  } else if (typeof root.entries === 'object' && root.entries !== null && !Array.isArray(root.entries)) {
    const entries = Object.values(root.entries as Record<string, unknown>).filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
    data = { ...root, entries: entries.map(fromWorldInfo) };
    format = 'sillytavern';
  } else {
    data = root;
    format = 'character_book';
  }
  if (!Array.isArray(data.entries)) {
    throw new CardError(
      root.spec === 'chara_card_v2' || root.spec === 'chara_card_v3'
        ? 'This is a character card, not a lorebook: import it on the Bots page (its lorebook comes with it).'
        : 'This is not a lorebook: it holds no entries.',
    );
  }
  const book = bookOf(data);
  if (!book || book.entries.length === 0) throw new CardError('This lorebook has no entries.');
  if (book.entries.length > MAX_LOREBOOK_ENTRIES) throw new CardError(`This lorebook has ${book.entries.length} entries; at most ${MAX_LOREBOOK_ENTRIES} are read.`);
  const long = book.entries.find((e) => e.content.length > MAX_LORE_CONTENT);
  if (long) throw new CardError(`Entry ${long.position + 1} is ${long.content.length} characters long; an entry holds at most ${MAX_LORE_CONTENT}.`);
  const name = (book.name || (typeof root.name === 'string' ? root.name : '') || fileName.replace(/\.[^.]+$/, '') || 'Lorebook').trim().slice(0, 120);
  return { name, format, book: lorebookOf(book, data) };
}
