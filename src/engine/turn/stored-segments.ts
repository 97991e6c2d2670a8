/** A part of a player's turn (`Segment`, in events/turns.ts, which writes through here). */
type Part = { type: string; text: string };

/**
 * A player's turn as the transcript keeps its parts. Most turns are one part, the whole text: only
 * that part's type is kept (`"dialogue"`), where the parts' JSON copied the text a second time.
 */
export const storedSegments = (segments: readonly Part[], text: string): string =>
  JSON.stringify(segments.length === 1 && segments[0]!.text === text ? segments[0]!.type : segments);

/** The parts back from what the transcript keeps (null for a reply). */
export function segmentsOf<S extends Part>(stored: string | null, text: string): S[] | null {
  if (stored === null) return null;
  const parsed = JSON.parse(stored) as S[] | string;
  return typeof parsed === 'string' ? [{ type: parsed, text } as S] : parsed;
}
