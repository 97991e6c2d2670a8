import { z } from 'zod';
import { RAW_TEXT_LIMIT } from '../events/classifier.ts';
import { LlmError, type ChatMessage, type LlmClient } from './port.ts';

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

const REFUSAL = /^\s*(I'm sorry|I am sorry|I apologi[sz]e|I can(?:not|'t)|I won't|As an AI|Sorry, but)/i;

/** The JSON object in a model's answer: code fences and chatter around it are tolerated. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const candidate = fenced ?? text;
  const start = candidate.indexOf('{');
  const end = candidate.lastIndexOf('}');
  if (start === -1 || end < start) {
    throw new Error(REFUSAL.test(text) ? 'the model refused instead of answering' : 'no JSON object in the answer');
  }
  try {
    return JSON.parse(candidate.slice(start, end + 1));
  } catch (error) {
    throw new Error(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

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
      const parsed = schema.safeParse(extractJson(raw));
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
