import { sha256 } from '@noble/hashes/sha2.js';
import type { CardBookEntry } from '../cards/card-json.ts';
import { RE2JS } from 're2js';
import { hasHangul, hasUnspacedScript, wordEdges } from '../text/search-text.ts';

/** How a lorebook entry's secondary keys combine with its primary ones (SillyTavern's four logics). */
export type SelectiveLogic = 'and_any' | 'and_all' | 'not_any' | 'not_all';

export interface LoreEntry {
  position: number;
  /** What the player calls it (SillyTavern's comment, a card's name); the inspector shows it. */
  name?: string;
  keys: string[];
  secondaryKeys: string[];
  selective: boolean;
  logic: SelectiveLogic;
  content: string;
  enabled: boolean;
  constant: boolean;
  caseSensitive: boolean;
  wholeWords: boolean;
  /** Newest messages scanned for this entry; null: the book's. */
  scanDepth: number | null;
  insertionOrder: number;
  placement: 'before_char' | 'after_char';
  /** 0-100, used when `useProbability`. */
  probability: number;
  useProbability: boolean;
  /** Its content is not scanned for other entries' keys. */
  preventRecursion: boolean;
  /** It is not fired by another entry's content, only by the story. */
  excludeRecursion: boolean;
  /** A constant entry that goes in whatever the budget. */
  ignoreBudget: boolean;
}

export interface Lorebook {
  entries: LoreEntry[];
  scanDepth: number;
  tokenBudget: number;
  recursive: boolean;
  maxRecursion: number;
}

export interface FiredEntry {
  entry: LoreEntry;
  /** The key that matched, or 'constant'. */
  key: string;
  /** 0 for the story, n for the n-th recursive pass. */
  depth: number;
}

/** SillyTavern's selectiveLogic numbers, in its order. */
export const LOGICS: SelectiveLogic[] = ['and_any', 'not_all', 'not_any', 'and_all'];
const ext = (raw: Record<string, unknown>) => (typeof raw.extensions === 'object' && raw.extensions !== null ? (raw.extensions as Record<string, unknown>) : {});
const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const bool = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);

/** A card's `character_book` entry in the terms activation uses; SillyTavern keeps its extras in `extensions`. */
export function loreEntry(entry: CardBookEntry): LoreEntry {
  const e = ext(entry.raw);
  const logic = typeof e.selectiveLogic === 'number' ? (LOGICS[e.selectiveLogic] ?? 'and_any') : 'and_any';
  const position = entry.raw.position === 'after_char' || e.position === 1 ? 'after_char' : 'before_char';
  // A V3 entry may say its keys are expressions without writing them as /…/.
  const asRegex = entry.raw.use_regex === true;
  const caseSensitive = bool(entry.raw.case_sensitive, bool(e.case_sensitive, false));
  const name = [entry.raw.comment, entry.raw.name].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return {
    position: entry.position,
    ...(name ? { name: name.trim().slice(0, 200) } : {}),
    keys: entry.keys.filter((k) => k.trim()).map((k) => (asRegex && !/^\/.+\/[a-z]*$/s.test(k) ? `/${k}/${caseSensitive ? '' : 'i'}` : k)),
    secondaryKeys: entry.secondaryKeys.filter((k) => k.trim()),
    selective: entry.selective,
    logic,
    content: entry.content,
    enabled: entry.enabled,
    constant: entry.constant,
    caseSensitive,
    wholeWords: bool(e.match_whole_words, false),
    scanDepth: typeof e.scan_depth === 'number' ? e.scan_depth : null,
    insertionOrder: entry.insertionOrder,
    placement: position,
    probability: Math.max(0, Math.min(100, num(e.probability, 100))),
    useProbability: bool(e.useProbability, false),
    preventRecursion: bool(e.prevent_recursion, false),
    excludeRecursion: bool(e.exclude_recursion, false),
    ignoreBudget: bool(e.ignore_budget, false),
  };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A text to scan, with its lower-case form made once for every key tried on it. */
interface Scan {
  text: string;
  lower: string;
  /** Which three-letter runs the lower-case text holds, hashed into a bitmap, made on first use. */
  grams?: Uint8Array;
  /** Where the segmenter puts word edges, in the text and in its lower case (made on first use). */
  edges?: Set<number>;
  lowerEdges?: Set<number>;
}

/**
 * "Whole words" for a key, as a test of the text. In a script written without spaces (Japanese,
 * Chinese, Thai) no letter edge says where a word ends: the key must begin and end where the
 * platform's segmenter puts word edges (灯台 is a word in 古い灯台で; 台 alone is not). A
 * Korean key may carry its particle (은열쇠 in 은열쇠를): it must begin a word. Elsewhere, the key
 * has no letter or digit right before or after it.
 */
function wholeWordTest(plain: string, needle: string, caseSensitive: boolean): (scan: Scan) => boolean {
  if (hasUnspacedScript(plain)) {
    return (scan) => {
      const text = caseSensitive ? scan.text : scan.lower;
      const edges = caseSensitive ? (scan.edges ??= wordEdges(scan.text)) : (scan.lowerEdges ??= wordEdges(scan.lower));
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) if (edges.has(at) && edges.has(at + needle.length)) return true;
      return false;
    };
  }
  const after = hasHangul(plain) ? '' : '(?![\\p{L}\\p{N}_])';
  const edges = new RegExp(`(?<![\\p{L}\\p{N}_])${escape(plain)}${after}`, caseSensitive ? 'u' : 'iu');
  return (scan) => edges.test(scan.text);
}

const GRAMS = 1 << 16;
const gram = (a: number, b: number, c: number) => (a * 961 + b * 31 + c + (a >>> 5) * 7) & (GRAMS - 1);

function gramsOf(scan: Scan): Uint8Array {
  if (!scan.grams) {
    const grams = new Uint8Array(GRAMS);
    const t = scan.lower;
    for (let i = 0; i + 2 < t.length; i++) grams[gram(t.charCodeAt(i), t.charCodeAt(i + 1), t.charCodeAt(i + 2))] = 1;
    scan.grams = grams;
  }
  return scan.grams;
}

/** The hashed three-letter runs of a key: a text lacking any of them cannot hold the key. */
function keyGrams(needle: string): number[] {
  const hashes = new Set<number>();
  for (let i = 0; i + 2 < needle.length; i++) hashes.add(gram(needle.charCodeAt(i), needle.charCodeAt(i + 1), needle.charCodeAt(i + 2)));
  return [...hashes];
}

const REGEX_KEY = /^\/(.+)\/([a-z]*)$/s;
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE };

/**
 * A `/pattern/flags` key (SillyTavern's syntax) as a test on the linear-time engine (RE2JS): no
 * key, however hostile (`/a*a*a*a*a*a*c/i` against a long run of a's), can take more than time in
 * proportion to the text. What that engine cannot express (lookaround, back-references) is a
 * problem, said in words; `g` and `y` mean nothing for a yes/no test, `u` is how it reads text anyway.
 */
export function regexKey(pattern: string, flags: string): { test: (text: string, lower?: string) => boolean } | { problem: string } {
  if (pattern.length > 2_000) return { problem: 'The expression is longer than 2,000 characters.' };
  const unknown = [...flags].filter((f) => !(f in FLAGS) && !'gyudv'.includes(f));
  if (unknown.length) return { problem: `Unknown flag "${unknown[0]}": use i, s or m.` };
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), [...flags].reduce((all, f) => all | (FLAGS[f] ?? 0), 0));
    const folded = flags.includes('i');
    const literals = requiredLiterals(pattern).map((l) => (folded ? l.toLowerCase() : l));
    return {
      test: (text, lower) => {
        const haystack = folded ? (lower ?? text.toLowerCase()) : text;
        for (const literal of literals) if (!haystack.includes(literal)) return false;
        return compiled.test(text);
      },
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    const why = /\(\?<?[=!]|\(\?<[=!]/.test(pattern)
      ? 'lookahead and lookbehind'
      : /\\[1-9]|\\k</.test(pattern)
        ? 'back-references'
        : null;
    return {
      problem: why
        ? `This key uses ${why}, which the lore engine does not run (it keeps every key fast on any text).`
        : `This key is not an expression the lore engine can read: ${detail}.`,
    };
  }
}

/**
 * Stretches of plain text any match of a pattern must contain, read from its top level (a group, a
 * class, an escape or a wildcard ends a stretch; `?`, `*` and `{0,…}` drop the character before
 * them). A text without one of them cannot match, and is passed over without running the
 * expression: most keys are absent from most messages, and the linear-time engine, though never
 * slow, is slower than a substring search. A pattern with a top-level `|`, or a group of flags
 * alone, gives none.
 */
export function requiredLiterals(pattern: string): string[] {
  // A group of flags alone (`(?i)`, `(?)`) matches nothing: a quantifier after it applies to what
  // came before (`a(?)?` is `a?`), and `i` makes every later letter match either case. Read as a
  // group, the stretch before it looked required; such a pattern gets no pre-check.
  if (/\(\?[A-Za-z-]*\)/.test(pattern)) return [];
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  const close = () => {
    if (run) runs.push(run);
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (depth === 0 && /[^A-Za-z0-9]/.test(next) && next !== '') run += next;
      else close();
      continue;
    }
    if (c === '[') {
      close();
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      close();
      depth++;
      continue;
    }
    if (c === ')') {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (depth > 0) continue;
    if (c === '|') return [];
    if (c === '?' || c === '*' || (c === '{' && /^\{0[,}]/.test(pattern.slice(i)))) {
      run = run.slice(0, -1);
      close();
      if (c === '{') i = pattern.indexOf('}', i) === -1 ? i : pattern.indexOf('}', i);
      continue;
    }
    if (c === '+' || c === '{') {
      close();
      if (c === '{') i = pattern.indexOf('}', i) === -1 ? i : pattern.indexOf('}', i);
      continue;
    }
    if (c === '.' || c === '^' || c === '$') {
      close();
      continue;
    }
    run += c;
  }
  close();
  return runs;
}

const keyProblems = new Map<string, string | null>();

/** Why a key will never fire, for the entry's page: an expression the lore engine cannot run. Null for a key that works. */
export function keyProblem(key: string): string | null {
  const regex = REGEX_KEY.exec(key);
  if (!regex) return null;
  // The Lore page asks on every refetch: a key is compiled once, as activation's keys are.
  let problem = keyProblems.get(key);
  if (problem === undefined) {
    const compiled = regexKey(regex[1]!, regex[2]!);
    problem = 'problem' in compiled ? compiled.problem : null;
    if (keyProblems.size > 20_000) keyProblems.clear();
    keyProblems.set(key, problem);
  }
  return problem;
}

/**
 * A key as a test: `/pattern/flags` is a regular expression, anything else plain text, found with
 * indexOf first (a regular expression only checks word edges where the text does hold the key).
 */
function matcher(key: string, entry: LoreEntry): ((scan: Scan) => boolean) | null {
  const regex = REGEX_KEY.exec(key);
  try {
    if (regex) {
      const compiled = regexKey(regex[1]!, regex[2]!);
      return 'test' in compiled ? (scan) => compiled.test(scan.text, scan.lower) : null;
    }
    const plain = key.trim();
    const needle = entry.caseSensitive ? plain : plain.toLowerCase();
    if (!needle) return null;
    const edges = entry.wholeWords ? wholeWordTest(plain, needle, entry.caseSensitive) : null;
    if (entry.caseSensitive) return (scan) => scan.text.includes(needle) && (!edges || edges(scan));
    // Most keys are absent from most texts: a few bitmap lookups say so before a search of the text.
    const grams = keyGrams(needle);
    return (scan) => {
      if (grams.length) {
        const present = gramsOf(scan);
        for (const g of grams) if (!present[g]) return false;
      }
      return scan.lower.includes(needle) && (!edges || edges(scan));
    };
  } catch {
    // A key that is not a valid expression never matches, rather than failing the turn.
    return null;
  }
}

/**
 * Keys' tests, kept between activations: a book's keys are the same turn after turn, and compiling
 * hundreds of expressions each reply was most of its cost.
 */
const matchers = new Map<string, (scan: Scan) => boolean>();
const never = () => false;
function cachedMatcher(key: string, entry: LoreEntry): (scan: Scan) => boolean {
  const id = `${entry.caseSensitive ? 1 : 0}${entry.wholeWords ? 1 : 0}${key}`;
  let test = matchers.get(id);
  if (test === undefined) {
    test = matcher(key, entry) ?? never;
    if (matchers.size > 20_000) matchers.clear();
    matchers.set(id, test);
  }
  return test;
}

/** Token counts of lore texts: a text's count never changes, so each is counted once. */
const counted = new Map<string, number>();
function tokensOf(text: string, count: (text: string) => number): number {
  let tokens = counted.get(text);
  if (tokens === undefined) {
    tokens = count(text);
    if (counted.size > 20_000) counted.clear();
    counted.set(text, tokens);
  }
  return tokens;
}

/** A roll in [0, 100) that is the same every time for this seed and entry: a rebuild or a regenerate sees the same lore. */
function roll(seed: string, position: number): number {
  const digest = sha256(new TextEncoder().encode(`${seed}:${position}`));
  return (((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0) / 2 ** 32 * 100;
}

/**
 * Which entries fire for a turn. `messages` are the story's texts, newest last; each entry looks at
 * its scan depth of them. Constant entries always fire; disabled ones never. Fired content is
 * scanned again for other entries' keys, up to `maxRecursion` passes. Then the token budget:
 * entries in insertion order (highest first keeps) until it is spent, constant entries marked to
 * ignore it always kept. Returned in insertion order.
 */
export function activateLore(book: Lorebook, messages: readonly string[], options: { seed: string; count: (text: string) => number }): FiredEntry[] {
  const fired = new Map<number, FiredEntry>();
  const passes = (entry: LoreEntry) => !entry.useProbability || entry.probability >= 100 || roll(options.seed, entry.position) < entry.probability;
  // Each key's test made once per activation, whatever the number of texts and passes it is tried on.
  const compiled = new Map<LoreEntry, { primary: [string, (scan: Scan) => boolean][]; secondary: ((scan: Scan) => boolean)[] }>();
  const keysOf = (entry: LoreEntry) => {
    let keys = compiled.get(entry);
    if (!keys) {
      const build = (key: string) => cachedMatcher(key, entry);
      keys = { primary: entry.keys.map((key) => [key, build(key)]), secondary: entry.secondaryKeys.map(build) };
      compiled.set(entry, keys);
    }
    return keys;
  };
  const test = (entry: LoreEntry, text: Scan): string | null => {
    const keys = keysOf(entry);
    const primary = keys.primary.find(([, matches]) => matches(text))?.[0];
    if (!primary) return null;
    if (!entry.selective || keys.secondary.length === 0) return primary;
    const hits = keys.secondary.map((matches) => matches(text));
    const ok =
      entry.logic === 'and_any' ? hits.some(Boolean) : entry.logic === 'and_all' ? hits.every(Boolean) : entry.logic === 'not_any' ? !hits.some(Boolean) : !hits.every(Boolean);
    return ok ? primary : null;
  };
  const scannedAt = new Map<number, Scan>();
  const scanned = (depth: number) => {
    let scan = scannedAt.get(depth);
    if (scan === undefined) {
      const text = messages.slice(Math.max(0, messages.length - depth)).join('\n');
      scan = { text, lower: text.toLowerCase() };
      scannedAt.set(depth, scan);
    }
    return scan;
  };

  const enabled = book.entries.filter((e) => e.enabled && e.content.trim());
  for (const entry of enabled) {
    if (entry.constant && passes(entry)) fired.set(entry.position, { entry, key: 'constant', depth: 0 });
  }
  for (const entry of enabled) {
    if (fired.has(entry.position)) continue;
    const key = test(entry, scanned(Math.max(0, entry.scanDepth ?? book.scanDepth)));
    if (key && passes(entry)) fired.set(entry.position, { entry, key, depth: 0 });
  }
  if (book.recursive) {
    let newest = [...fired.values()];
    for (let pass = 1; pass <= Math.min(book.maxRecursion, 10) && newest.length > 0; pass++) {
      const content = newest.filter((f) => !f.entry.preventRecursion).map((f) => f.entry.content).join('\n');
      const text = { text: content, lower: content.toLowerCase() };
      newest = [];
      for (const entry of enabled) {
        if (fired.has(entry.position) || entry.excludeRecursion) continue;
        const key = test(entry, text);
        if (key && passes(entry)) {
          const hit = { entry, key, depth: pass };
          fired.set(entry.position, hit);
          newest.push(hit);
        }
      }
    }
  }

  const ranked = [...fired.values()].sort((a, b) => b.entry.insertionOrder - a.entry.insertionOrder || a.entry.position - b.entry.position);
  let spent = 0;
  const kept = ranked.filter((f) => {
    if (f.entry.constant && f.entry.ignoreBudget) return true;
    const cost = tokensOf(f.entry.content, options.count);
    if (spent + cost > book.tokenBudget) return false;
    spent += cost;
    return true;
  });
  return kept.sort((a, b) => a.entry.insertionOrder - b.entry.insertionOrder || a.entry.position - b.entry.position);
}

/** A card's `character_book` as a lorebook, with SillyTavern's defaults where the card is silent. */
export function lorebookOf(book: { entries: CardBookEntry[] } & { raw?: Record<string, unknown> }, raw: Record<string, unknown> = {}): Lorebook {
  return {
    entries: book.entries.map(loreEntry),
    scanDepth: num(raw.scan_depth, 2),
    tokenBudget: num(raw.token_budget, 1_024),
    recursive: bool(raw.recursive_scanning, false),
    maxRecursion: 3,
  };
}
