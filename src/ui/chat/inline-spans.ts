/** The inline marks of story text (bold, actions, OOC asides), for a one-line preview of it. */
export type Inline = { kind: 'text' | 'bold' | 'italic' | 'ooc'; text: string };

function escapeForRegex(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function inlineSpans(text: string, oocOpen = '((', oocClose = '))'): Inline[] {
  // An action cut off before its closing * (a reply stopped mid-action) runs to the end of the text,
  // as the parser treats what the user types, instead of showing a stray *.
  const pattern = new RegExp(`(${escapeForRegex(oocOpen)}[\\s\\S]*?(?:${escapeForRegex(oocClose)}|$))|\\*\\*([^*]+)\\*\\*|\\*([^*\\n]+)\\*|_([^_\\n]+)_|\\*(?=\\S)([^*]+)$`, 'g');
  const spans: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) spans.push({ kind: 'text', text: text.slice(last, match.index) });
    if (match[1] !== undefined) spans.push({ kind: 'ooc', text: match[1] });
    else if (match[2] !== undefined) spans.push({ kind: 'bold', text: match[2] });
    else spans.push({ kind: 'italic', text: match[3] ?? match[4] ?? match[5] ?? '' });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ kind: 'text', text: text.slice(last) });
  return spans;
}

/** Story text without its marks (a one-line preview): actions and bold as their words, asides left out. */
export function plainText(text: string, oocOpen = '((', oocClose = '))'): string {
  const unmarked = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/^\s*(#{1,6}\s+|>\s?|[-+]\s+|\d+\.\s+|`{3,}.*$|(-{3,}|\*{3,}|_{3,})\s*$)/gm, '')
    .replace(/~~|`/g, '');
  return inlineSpans(unmarked.replace(/\s+/g, ' '), oocOpen, oocClose)
    .filter((span) => span.kind !== 'ooc')
    .map((span) => span.text)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}
