/**
 * Words in every script, for the full-text indexes (issue 34). SQLite's unicode61 tokenizer splits
 * on spaces and punctuation, so a Japanese, Chinese or Thai sentence, written without spaces, is
 * one token and none of its words can be found. The platform's word segmenter (`Intl.Segmenter`,
 * ICU's dictionaries, in every browser and in Node) finds them; the indexed text gets an invisible
 * ZERO WIDTH SPACE at each word boundary in those scripts, which unicode61 treats as a separator
 * and a reader never sees. Text in other scripts is indexed as it was (porter stemming, diacritics
 * folding, bm25 weights unchanged).
 */

/** Scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;
export const WORD_BREAK = '\u200b';

let segmenter: Intl.Segmenter | undefined;
/** ICU's word break is the same for every locale in these scripts (its CJK dictionary is one). */
const wordSegmenter = () => (segmenter ??= new Intl.Segmenter('und', { granularity: 'word' }));

/** The text with a word break at each word boundary in scripts without spaces; other text as it is. */
export function spacedForSearch(text: string): string {
  if (!UNSPACED.test(text)) return text;
  let spaced = '';
  for (const { segment } of wordSegmenter().segment(text)) spaced += UNSPACED.test(segment) ? `${WORD_BREAK}${segment}${WORD_BREAK}` : segment;
  return spaced;
}

/** Does the text hold a script written without spaces? */
export const hasUnspacedScript = (text: string): boolean => UNSPACED.test(text);

/** Does the text hold Hangul, whose words carry their particles (은열쇠를: 은열쇠 + 를)? */
export const hasHangul = (text: string): boolean => HANGUL.test(text);

/** Where the segmenter puts word edges in a text: the index of every segment's start and end. */
export function wordEdges(text: string): Set<number> {
  const edges = new Set<number>([0, text.length]);
  for (const { index, segment } of wordSegmenter().segment(text)) {
    edges.add(index);
    edges.add(index + segment.length);
  }
  return edges;
}

/** The text as a reader should see it again: the index's word breaks taken out (a snippet's text). */
export const withoutWordBreaks = (text: string): string => text.replaceAll(WORD_BREAK, '');

/** The words of a text, lowercased, in reading order: by the segmenter where it has unspaced script, else by letters. */
export function wordsOf(text: string): string[] {
  const lower = text.toLowerCase();
  if (!UNSPACED.test(lower)) return lower.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}'’]*/gu) ?? [];
  return [...wordSegmenter().segment(lower)].filter((s) => s.isWordLike).map((s) => s.segment);
}

/** What the story index's tokenizer keeps in a word (unicode61's `categories 'L* N* Co M*'`, 0069); anything else splits it. */
const NOT_IN_A_TOKEN = /[^\p{L}\p{N}\p{Co}\p{M}]+/u;

/**
 * A word as the story index's tokens: itself, or the pieces its tokenizer splits it into. That
 * index keeps no positions (0069) and refuses a phrase, and a quoted word of two tokens is one, so
 * a query quotes each token on its own (the memories' indexes, which keep positions, read the
 * pieces as the phrase they are).
 */
export const indexTokens = (word: string): string[] => word.split(NOT_IN_A_TOKEN).filter(Boolean);

/** A word as FTS5 query syntax: each of its tokens quoted (never read as syntax), the last one also as a start (`*`) if asked. */
export function quotedTokens(word: string, asStart = false): string {
  const tokens = indexTokens(word).map((token) => `"${token}"`);
  const quoted = `${tokens.join(' ')}${asStart ? '*' : ''}`;
  return tokens.length > 1 ? `(${quoted})` : quoted;
}

/**
 * Function words of Chinese and Japanese that the segmenter gives as words of their own: in nearly
 * every sentence, they would only slow the search (bm25 would weigh them near nothing anyway).
 */
const UNSPACED_STOP_WORDS = new Set('的 了 在 是 把 被 里 哪 哪里 哪儿 什么 吗 呢 吧 啊 这 那 和 与 也 都 就 还 我 你 他 她 它 们 有 没 不 个 是在 地方 多少 何 誰 何処'.split(' '));

/** Is this word worth searching for? Short words are, in scripts where a word is one or two characters. */
export function isSearchWord(word: string, stopWords: ReadonlySet<string>): boolean {
  if (UNSPACED.test(word)) return !UNSPACED_STOP_WORDS.has(word) && !(HIRAGANA_ONLY.test(word) && word.length <= 2);
  if (HANGUL.test(word)) return word.length >= 2;
  return (word.length >= 3 || /\d/.test(word)) && !stopWords.has(word);
}

/**
 * How much of a word's end to let go when it is looked for by its start: its inflection, or a
 * particle. "ключи" finds "ключ" and "ключа", "은열쇠는" finds "은열쇠를", "encontraron" finds
 * "schlüssels" finds "schlüssel". Nothing for words in unspaced scripts (the segmenter gives
 * their stems), for words too short to keep a start that still means something, or for plain
 * ASCII words (below).
 */
export function prefixOf(word: string): string | undefined {
  if (UNSPACED.test(word)) return undefined;
  const letters = [...word];
  const n = letters.length;
  if (HANGUL.test(word)) return n >= 3 ? letters.slice(0, n >= 4 ? n - 2 : n - 1).join('') : undefined;
  // Plain ASCII is mostly English, which porter stemming already serves: a start there finds more
  // noise ("ledger" finding "ledge") than answers.
  if (n < 5 || !/[^\x00-\x7f]/.test(word)) return undefined;
  const kept = Math.max(4, n - (n >= 8 ? 3 : n >= 6 ? 2 : 1));
  return kept < n ? letters.slice(0, kept).join('') : undefined;
}
