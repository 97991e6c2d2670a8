import { jsonrepair } from 'jsonrepair';

/**
 * JSON as models write it (issue 35, part 2). Real models wrap the object in code fences and
 * chatter, think first (with braces in their thinking), leave trailing commas, single quotes,
 * comments and unquoted keys, or stop mid-object when max_tokens runs out. Each of these cost a
 * retry call when the answer went straight to JSON.parse. Here the thinking goes first, then each
 * object the answer holds is found by its brackets (a cut-off one runs to the end), repaired by
 * `jsonrepair`, and the first that holds what the caller asks for is the answer.
 */

/**
 * The answer without the model's thinking: `<think>…</think>` and `<thinking>…</thinking>` blocks,
 * whatever their case, and everything before a closing tag with no opening one (a chat template
 * that opened the block itself). A block never closed leaves no answer at all.
 */
export function withoutThinking(text: string): string {
  let answer = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '');
  const lone = /<\/(think|thinking|reasoning)>/i.exec(answer);
  if (lone) answer = answer.slice(lone.index + lone[0].length);
  const open = /<(think|thinking|reasoning)>/i.exec(answer);
  if (open) answer = answer.slice(0, open.index);
  return answer;
}

const CLOSING: Record<string, string> = { '"': '"', '“': '”', "'": "'" };

/** From an opening bracket: where its object ends (past the close), or the text's end when it never closes. */
function spanEnd(text: string, start: number): number {
  // Single quotes are strings only in an object written with them ({'a': …}): elsewhere they are apostrophes.
  const singles = /^[{[]\s*'/.test(text.slice(start, start + 20));
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === '“' || (singles && ch === "'")) {
      const close = CLOSING[ch]!;
      for (i++; i < text.length && text[i] !== close && !(close === '”' && text[i] === '"'); i++) if (text[i] === '\\') i++;
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** Repairs and parses one candidate; undefined when even the repair cannot read it. */
function parse(candidate: string): unknown {
  const trimmed = candidate.replace(/```\s*$/, '').trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      return JSON.parse(jsonrepair(trimmed));
    } catch {
      return undefined;
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The object in a model's answer that has any of `wanted`'s keys (any object when none are named),
 * looking inside the fenced block first when there is one, then at every object of the answer in
 * order, nested ones too (an answer wrapped in `{"analysis": …}` or `[…]`). Throws saying why when
 * there is none: the caller asks again.
 */
export function readJson(text: string, wanted: readonly string[] = []): Record<string, unknown> {
  const answer = withoutThinking(text).trim();
  if (!answer) throw new Error(text.trim() ? 'the answer held only thinking' : 'the answer was empty');
  const fenced = /```[a-z]*\s*\n?([\s\S]*?)(?:```|$)/i.exec(answer)?.[1];
  const fits = (value: unknown): value is Record<string, unknown> => isObject(value) && (wanted.length === 0 || wanted.some((key) => key in value));
  for (const source of fenced ? [fenced, answer] : [answer]) {
    // Every bracket is a candidate start, in order; a long answer full of brackets is not read forever.
    const starts = [...source.matchAll(/[{[]/g)].slice(0, 40).map((match) => match.index);
    for (const start of starts) {
      const value = parse(source.slice(start, spanEnd(source, start)));
      if (fits(value)) return value;
    }
  }
  throw new Error(/^\s*(I'm sorry|I am sorry|I apologi[sz]e|I can(?:not|'t)|I won't|As an AI|Sorry, but)/i.test(answer) ? 'the model refused instead of answering' : 'no JSON object in the answer');
}
