import type { Segment } from '../events/turns.ts';

export interface ParseOptions {
  /** Opens an out-of-character aside; the closer mirrors it: `((` -> `))`, `[[` -> `]]`, `{{` -> `}}`. */
  oocMarker: string;
}

const MIRROR: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
export const closingMarker = (open: string) => [...open].reverse().map((c) => MIRROR[c] ?? c).join('');

/**
 * Splits what the user wrote into dialogue ("..."), action (*...*), out-of-character asides
 * ((...)) and plain narration, deterministically. Unclosed markers run to the end of the text, so a
 * user who forgets the closing `))` still never leaks the aside to the narrator.
 */
export function parseUserText(text: string, options: ParseOptions): Segment[] {
  const open = options.oocMarker;
  const close = closingMarker(open);
  const segments: Segment[] = [];
  let buffer = '';
  const flush = (type: Segment['type']) => {
    if (type === 'narration' ? buffer.trim() !== '' : buffer !== '') segments.push({ type, text: type === 'narration' ? buffer.trim() : buffer.trim() });
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    if (text.startsWith(open, i)) {
      flush('narration');
      const end = text.indexOf(close, i + open.length);
      buffer = text.slice(i + open.length, end === -1 ? text.length : end);
      flush('ooc');
      i = end === -1 ? text.length : end + close.length;
      continue;
    }
    const ch = text[i]!;
    const pair = ch === '"' ? '"' : ch === '“' ? '”' : ch === '*' ? '*' : null;
    if (pair) {
      const end = text.indexOf(pair, i + 1);
      // A lone quote or asterisk is just a character, unless an OOC aside starts before its pair.
      const oocFirst = end !== -1 && text.slice(i + 1, end).includes(open);
      if (end !== -1 && !oocFirst) {
        flush('narration');
        buffer = text.slice(i + 1, end);
        flush(ch === '*' ? 'action' : 'dialogue');
        i = end + 1;
        continue;
      }
    }
    buffer += ch;
    i++;
  }
  flush('narration');
  return segments;
}

/** The user's turn as the narrator may see it: everything but the OOC asides, in order. */
export function inCharacterText(segments: readonly Segment[]): string {
  return segments
    .filter((s) => s.type !== 'ooc')
    .map((s) => (s.type === 'dialogue' ? `"${s.text}"` : s.type === 'action' ? `*${s.text}*` : s.text))
    .join(' ')
    .trim();
}
