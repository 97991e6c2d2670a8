/**
 * Replies cut where a person would (issue 35, part 5). Models run on: past their own reply into the
 * player's next line ("\nAda: …", "\nYou: …") or another character's, and some start with their
 * speaker's name as a script would ("Mira: …"). This watches the reply as it streams: a label at
 * its very start is taken off, and at the first stop string the reply ends there. Text that could
 * still turn out to be a stop string (or the label) is held back until the next piece says, so a
 * tab never shows words that are then taken away.
 */
export interface ReplyCut {
  /** The reply's text to show now. */
  out: string;
  /** The stop string the reply ended at: nothing after it is kept. */
  stoppedAt?: string;
  /** The label taken off the reply's start ("Mira:"). */
  trimmedLabel?: string;
}

const labelsOf = (name: string) => [`${name}:`, `**${name}:**`, `**${name}**:`, `*${name}:*`, `*${name}*:`].map((label) => label.toLowerCase());

export function createReplyCutter(options: { stopAt: readonly string[]; labels: readonly string[] }) {
  const stops = options.stopAt.filter((stop) => stop.trim() !== '');
  const labels = options.labels.filter((name) => name.trim() !== '').flatMap(labelsOf);
  let atStart = labels.length > 0;
  /** After a label, the space that followed it goes too, however the pieces fall. */
  let afterLabel = false;
  let held = '';
  let ended = false;
  /** How much of the end of `text` could still become a stop string. */
  const tailToHold = (text: string) => {
    let longest = 0;
    for (const stop of stops) for (let n = Math.min(stop.length - 1, text.length); n > longest; n--) if (stop.startsWith(text.slice(-n))) longest = n;
    return longest;
  };
  const step = (piece: string, final: boolean): ReplyCut => {
    if (ended) return { out: '' };
    let text = held + piece;
    held = '';
    const result: ReplyCut = { out: '' };
    if (atStart) {
      const lower = text.trimStart().toLowerCase();
      const found = labels.find((label) => lower.startsWith(label));
      if (found) {
        const start = text.length - text.trimStart().length;
        result.trimmedLabel = text.slice(start, start + found.length);
        text = text.slice(start + found.length);
        atStart = false;
        afterLabel = true;
      } else if (!final && labels.some((label) => label.startsWith(lower))) {
        held = text;
        return result;
      } else atStart = false;
    }
    if (afterLabel) {
      text = text.trimStart();
      if (text) afterLabel = false;
    }
    const matches = stops.map((stop) => [stop, text.indexOf(stop)] as const).filter(([, at]) => at !== -1);
    if (matches.length) {
      const [stop, at] = matches.reduce((first, next) => (next[1] < first[1] ? next : first));
      ended = true;
      return { ...result, out: text.slice(0, at).trimEnd(), stoppedAt: stop };
    }
    // Line breaks before what is held (or at the end) wait too: a stop string after them would
    // leave them dangling. Spaces between words go out as they come.
    let keep = final ? 0 : tailToHold(text);
    if (!final) {
      let run = keep;
      while (run < text.length && /\s/.test(text[text.length - run - 1]!)) run++;
      if (text.slice(text.length - run, text.length - keep).includes('\n')) keep = run;
    }
    held = text.slice(text.length - keep);
    result.out = text.slice(0, text.length - keep);
    return result;
  };
  return {
    push: (piece: string) => step(piece, false),
    /** The reply's end: what was held back is the reply's after all. */
    end: () => step('', true),
    ended: () => ended,
  };
}

/**
 * The stop strings for a reply: the player's name and "You" at the start of a line, every other
 * character present by name, and the player's own from Settings ("\n" in them is a new line).
 */
export function stopStringsFor(input: { player: string; others: readonly string[]; ownStops: readonly string[] }): string[] {
  const names = [input.player, 'You', ...input.others].filter((name) => name.trim() !== '');
  const own = input.ownStops.map((stop) => stop.replaceAll('\\n', '\n')).filter((stop) => stop.trim() !== '');
  return [...new Set([...names.map((name) => `\n${name}:`), ...own])];
}
