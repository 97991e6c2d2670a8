import { z } from 'zod';
import { RAW_TEXT_LIMIT } from '../events/classifier.ts';
import { LlmError, type ChatMessage, type LlmClient } from './port.ts';
import { readJson } from './read-json.ts';

export interface ClassifierFailure {
  task: string;
  model: string;
  raw: string;
  error: string;
  attempts: number;
}

export interface ClassifyDeps {
  llm: LlmClient;
  model: string;
  fallbacks: readonly string[];
  timeoutMs: number;
  /** Called once per model that gave up; the engine turns it into a classifier_failed event. */
  recordFailure(failure: ClassifierFailure): void;
}

export interface ClassifyOptions<T> {
  /** Names the call in Settings' failure list ("analysis", "kickoff", ...). */
  task: string;
  /** What the caller gets when every model failed: the turn goes on with it. */
  fallback: T;
  signal?: AbortSignal;
  maxTokens?: number;
}

export interface ClassifyResult<T> {
  value: T;
  /** False when `value` is the fallback. */
  ok: boolean;
  model: string | null;
  calls: number;
}

/** A value with numbers and yes/no written as text ("5", "+2", "true") read as what they say. */
function coerced(value: unknown): unknown {
  if (typeof value === 'string') {
    if (/^\s*[+-]?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
    if (/^\s*(true|false)\s*$/i.test(value)) return /true/i.test(value);
    return value;
  }
  if (Array.isArray(value)) return value.map(coerced);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, coerced(v)]));
  return value;
}

/**
 * An object answer validated part by part: a part the model got wrong (a word where a number
 * goes, a null, a list where an object goes) is read again with its numbers taken as numbers, else
 * takes the fallback's value, and the other parts stand. Usable when most of the required parts
 * were given right; otherwise the whole answer's issues go back to the model.
 */
function readByParts<S extends z.ZodType>(schema: S, value: Record<string, unknown>, fallback: z.infer<S>): z.ZodSafeParseResult<z.infer<S>> {
  const whole = schema.safeParse(value);
  if (!(schema instanceof z.ZodObject)) return whole;
  // A part read both ways keeps the reading that holds more: a part that drops what it cannot read
  // (`.catch`) "succeeds" either way, and only its numbers read as numbers keep the pair with "+3".
  const size = (data: unknown) => JSON.stringify(data ?? null).length;
  const shape = schema.shape as Record<string, z.ZodType>;
  const kept: Record<string, unknown> = {};
  let required = 0;
  let right = 0;
  for (const [key, part] of Object.entries(shape)) {
    const optional = part.safeParse(undefined).success;
    if (!optional) required++;
    const readings = [part.safeParse(value[key]), part.safeParse(coerced(value[key]))].filter((r) => r.success);
    const best = readings.sort((a, b) => size(b.data) - size(a.data))[0];
    if (best && key in value) {
      kept[key] = best.data;
      if (!optional) right++;
    } else kept[key] = (fallback as Record<string, unknown>)[key];
  }
  if (right * 2 <= required) return whole;
  const merged = schema.safeParse(kept);
  return merged.success ? merged : whole;
}

/** The keys an object schema asks for: how the answer's object is told from others in it. */
const keysOf = (schema: z.ZodType): string[] => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 6)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}


/**
 * Asks for JSON matching `schema` and validates it. Order: the classifier model; once more with a
 * stricter instruction naming what was wrong; each fallback model once; then `fallback`. Every model
 * that gives up is recorded. Never throws into a turn: a failing classifier only costs quality.
 */
export async function classify<S extends z.ZodType>(
  deps: ClassifyDeps,
  schema: S,
  prompt: { system: string; user: string },
  options: ClassifyOptions<z.infer<S>>,
): Promise<ClassifyResult<z.infer<S>>> {
  const jsonSchema = JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  const base: ChatMessage[] = [
    {
      role: 'system',
      content: `${prompt.system}\n\nRespond with a single JSON object and nothing else. It must match this JSON Schema:\n\`\`\`json\n${jsonSchema}\n\`\`\``,
    },
    { role: 'user', content: prompt.user },
  ];
  let calls = 0;

  const attempt = async (model: string, messages: ChatMessage[]) => {
    calls++;
    const timeout = AbortSignal.timeout(deps.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let raw = '';
    try {
      const reply = await deps.llm.complete(messages, {
        model,
        json: true,
        priority: 'analysis',
        temperature: 0.2,
        signal,
        ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
      });
      raw = reply.text;
      const parsed = readByParts(schema, readJson(raw, keysOf(schema)), options.fallback);
      if (parsed.success) return { ok: true as const, value: parsed.data as z.infer<S> };
      return { ok: false as const, raw, error: `does not match the schema: ${describeIssues(parsed.error)}` };
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) {
        return { ok: false as const, raw, error: `timed out after ${deps.timeoutMs} ms` };
      }
      const reason = error instanceof LlmError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      return { ok: false as const, raw, error: reason };
    }
  };

  const stricter = (raw: string, error: string): ChatMessage[] => [
    ...base,
    ...(raw ? [{ role: 'assistant' as const, content: raw.slice(0, RAW_TEXT_LIMIT) }] : []),
    {
      role: 'user',
      content: `That answer was rejected (${error}). Reply again with ONLY the JSON object matching the schema: no prose, no code fence, no apology.`,
    },
  ];

  const models = [deps.model, ...deps.fallbacks.filter((m) => m !== deps.model)];
  for (const [index, model] of models.entries()) {
    if (options.signal?.aborted) break;
    // The classifier model gets a plain try and a stricter retry; each fallback goes straight to strict.
    let result = index === 0 ? await attempt(model, base) : await attempt(model, stricter('', 'the previous model failed'));
    let attempts = 1;
    if (!result.ok && index === 0 && !options.signal?.aborted) {
      result = await attempt(model, stricter(result.raw, result.error));
      attempts = 2;
    }
    if (result.ok) return { value: result.value, ok: true, model, calls };
    if (options.signal?.aborted) break;
    deps.recordFailure({ task: options.task, model, raw: result.raw.slice(0, RAW_TEXT_LIMIT), error: result.error.slice(0, 2_000), attempts });
  }
  return { value: options.fallback, ok: false, model: null, calls };
}
