/** A file that is not a card we can read: the message says which and why, for the player. Nothing is written. */
export class CardError extends Error {
  override name = 'CardError';
}

/** The largest card file read (a PNG with its art, a CHARX with its assets). */
export const MAX_CARD_BYTES = 20 * 1024 * 1024;

/** Deeper than any card, lorebook or chat line nests; past it, saving or sending the value would overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply a parsed JSON value nests, counted without recursion and stopping past `MAX_JSON_DEPTH`:
 * the browser parses a value 10,000 levels deep, then overflows its stack writing it again.
 */
export function jsonTooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const inner of Object.values(current)) if (typeof inner === 'object' && inner !== null) stack.push([inner, depth + 1]);
  }
  return false;
}
