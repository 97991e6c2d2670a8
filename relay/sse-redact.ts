import { streamScrubber } from './redact.ts';

const EVENT_END = /\r?\n\r?\n/;

/** An SSE event's data (its `data:` lines joined), or undefined for a comment such as `: keep-alive`. */
export const dataOf = (event: string): string | undefined => {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  return lines.length ? lines.map((line) => line.slice(5).trimStart()).join('\n') : undefined;
};

type Chunk = { choices?: unknown; [key: string]: unknown };
type Choice = { index?: unknown; delta?: unknown; finish_reason?: unknown };

/**
 * Redacts the secrets from a streamed completion as the client will read it: each choice's text
 * fields (content, reasoning) joined across events, decoded, so a key the upstream spreads over
 * three events, or escapes, is caught whole. Events go out whole as they complete; the end of a
 * text that could begin a secret waits for the next event of that text, or goes out before the
 * choice finishes or the stream ends. Anything else in an event is redacted in its own text.
 */
export function sseRedactor(secrets: readonly string[], scrub: (text: string) => string) {
  let buffer = '';
  const texts = new Map<string, { index: number; field: string; stream: ReturnType<typeof streamScrubber> }>();
  let meta: Record<string, unknown> = {};

  const textOf = (index: number, field: string) => {
    const key = `${index}\u0000${field}`;
    let entry = texts.get(key);
    if (!entry) texts.set(key, (entry = { index, field, stream: streamScrubber(secrets) }));
    return entry.stream;
  };
  const line = (value: unknown) => `data: ${scrub(JSON.stringify(value))}\n\n`;

  /** What is still held of every text, as one more chunk (nothing when nothing is held). */
  const flush = (only?: number): string => {
    const choices = new Map<number, Record<string, string>>();
    for (const [key, entry] of texts) {
      if (only !== undefined && entry.index !== only) continue;
      const rest = entry.stream.end();
      texts.delete(key);
      if (rest) choices.set(entry.index, { ...choices.get(entry.index), [entry.field]: rest });
    }
    if (choices.size === 0) return '';
    return line({ ...meta, choices: [...choices].map(([index, delta]) => ({ index, delta, finish_reason: null })) });
  };

  const event = (text: string): string => {
    const data = dataOf(text);
    if (data === undefined) return `${scrub(text)}\n\n`;
    if (data === '[DONE]') return `${flush()}data: [DONE]\n\n`;
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      return `${scrub(text)}\n\n`;
    }
    if (typeof chunk !== 'object' || chunk === null || !Array.isArray(chunk.choices)) return line(chunk);
    meta = Object.fromEntries(Object.entries(chunk).filter(([key]) => key === 'id' || key === 'object' || key === 'created' || key === 'model'));
    let before = '';
    for (const choice of chunk.choices as Choice[]) {
      const index = typeof choice?.index === 'number' ? choice.index : 0;
      const delta = choice?.delta;
      if (typeof delta === 'object' && delta !== null) {
        for (const [field, value] of Object.entries(delta)) {
          if (typeof value === 'string' && field !== 'role') (delta as Record<string, unknown>)[field] = textOf(index, field).push(value);
        }
      }
      // What was held of this choice goes out before its end.
      if (choice?.finish_reason != null) before += flush(index);
    }
    return before + line(chunk);
  };

  return {
    /** The complete events in what has arrived so far, redacted. */
    push(piece: string): string {
      buffer += piece;
      let out = '';
      for (let end = EVENT_END.exec(buffer); end; end = EVENT_END.exec(buffer)) {
        out += event(buffer.slice(0, end.index));
        buffer = buffer.slice(end.index + end[0].length);
      }
      return out;
    },
    /** The stream ended (or broke): what is still held, then whatever was left of an unfinished event. */
    end(): string {
      const rest = buffer;
      buffer = '';
      return flush() + (rest ? scrub(rest) : '');
    },
  };
}
