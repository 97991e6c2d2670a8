/**
 * A text as what it shares with an earlier one: slices of the earlier text (by UTF-16 offsets) and
 * the words between them. A reply's feelings or open threads differ from the last reply's by a fact
 * or a number, and each was logged whole at every reply (`prompt_text_kept`): at 400 exchanges,
 * 1.2 KB an event, two and a half events an exchange, a fifth of a played story's database.
 *
 * Texts are cut into pieces after each line break and each `;` `,` `.` `:` `?` `!` (with the spaces
 * after: an open thread's line is its kind, how long ago it began, and its words, each a piece),
 * the pieces of the earlier text found by their words, and runs of them kept as one slice. What the
 * earlier text does not hold, and short pieces that would cost more as a slice than as words, stay
 * words. Reading it back is joining the pieces: nothing is inferred.
 */
export type TextDelta = (string | [start: number, end: number])[];

/** A piece shorter than this is kept as its words unless it carries on the slice before it. */
const SLICED_FROM = 12;

const piecesOf = (text: string): string[] => text.match(/[^\n;,.:?!]*(?:[\n;,.:?!]+[ \t]*|$)/g)?.filter((piece) => piece !== '') ?? [];

/** `text` as slices of `base` and words. */
export function deltaOf(base: string, text: string): TextDelta {
  // Each piece of the base by its words: where it first stands, and everywhere it stands (a set,
  // so a text of one piece repeated thousands of times is still read in one pass).
  const at = new Map<string, { first: number; all: Set<number> }>();
  const starts: number[] = [];
  let offset = 0;
  piecesOf(base).forEach((piece, index) => {
    starts.push(offset);
    offset += piece.length;
    const known = at.get(piece);
    if (known) known.all.add(index);
    else at.set(piece, { first: index, all: new Set([index]) });
  });
  const delta: TextDelta = [];
  const words = (piece: string) => {
    const last = delta.at(-1);
    if (typeof last === 'string') delta[delta.length - 1] = last + piece;
    else delta.push(piece);
  };
  let previous = -2;
  for (const piece of piecesOf(text)) {
    const found = at.get(piece);
    const next = found?.all.has(previous + 1) ? previous + 1 : piece.length >= SLICED_FROM ? found?.first : undefined;
    if (next === undefined) {
      words(piece);
      previous = -2;
      continue;
    }
    const last = delta.at(-1);
    if (next === previous + 1 && Array.isArray(last)) last[1] = starts[next]! + piece.length;
    else delta.push([starts[next]!, starts[next]! + piece.length]);
    previous = next;
  }
  return delta;
}

/** The text back from `base` and its delta; null when a slice falls outside `base` (not this text's base). */
export function textFromDelta(base: string, delta: TextDelta): string | null {
  let text = '';
  for (const piece of delta) {
    if (typeof piece === 'string') text += piece;
    else {
      const [start, end] = piece;
      if (start < 0 || end > base.length || start > end) return null;
      text += base.slice(start, end);
    }
  }
  return text;
}
