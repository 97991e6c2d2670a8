import { classify } from '../src/engine/llm/classify.ts';
import { analysisSchema, FALLBACK_ANALYSIS } from '../src/engine/analysis/turn-analysis.ts';
import { CORPUS } from '../tests/fixtures/analysis-answers.ts';
import { scriptedLlm } from '../tests/support/scripted-llm.ts';
import { printTable } from './table.ts';

const schema = analysisSchema(['Ada -> Mira', 'Mira -> Ada'], false);

/** The reading before issue 35: the text from the first "{" to the last "}", JSON.parse, the whole schema at once. */
function readBefore(text: string): boolean {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1] ?? text;
  const [start, end] = [fenced.indexOf('{'), fenced.lastIndexOf('}')];
  if (start === -1 || end < start) return false;
  try {
    return schema.safeParse(JSON.parse(fenced.slice(start, end + 1))).success;
  } catch {
    return false;
  }
}

/** Whether the first call's answer gives a usable analysis now, and whether reading it threw. */
async function readNow(text: string): Promise<{ usable: boolean; threw: boolean }> {
  const llm = scriptedLlm(text, 'still nothing', 'still nothing');
  try {
    const result = await classify(
      { llm: llm.client, model: 'classifier', fallbacks: [], timeoutMs: 5_000, recordFailure: () => {} },
      schema,
      { system: 'Analyse the turn.', user: 'Ada asks Mira about the map.' },
      { task: 'analysis', fallback: FALLBACK_ANALYSIS },
    );
    return { usable: result.ok && result.calls === 1, threw: false };
  } catch {
    return { usable: false, threw: true };
  }
}

/**
 * JSON as models write it (issue 35, part 2): the analysis corpus in tests/fixtures, read as the
 * first call's answer before and after the repair. A usable answer costs no retry call; every other
 * one costs a retry (then the fallback models).
 */
export async function benchJsonRepair(): Promise<void> {
  const recoverable = CORPUS.filter((answer) => answer.recoverable);
  let before = 0;
  let now = 0;
  let threw = 0;
  const byKind = new Map<string, [number, number, number]>();
  for (const answer of CORPUS) {
    const was = readBefore(answer.text);
    const is = await readNow(answer.text);
    if (is.threw) threw++;
    if (!answer.recoverable) continue;
    before += was ? 1 : 0;
    now += is.usable ? 1 : 0;
    const [b, n, total] = byKind.get(answer.kind) ?? [0, 0, 0];
    byKind.set(answer.kind, [b + (was ? 1 : 0), n + (is.usable ? 1 : 0), total + 1]);
  }
  const share = (n: number) => `${n}/${recoverable.length} (${Math.round((100 * n) / recoverable.length)} %)`;
  printTable(`Analysis answers read without a retry call (${CORPUS.length} answers, ${recoverable.length} recoverable)`, [
    ['before: first "{" to last "}", JSON.parse, whole schema', share(before)],
    ['now: thinking dropped, each object repaired, part by part', share(now)],
    ['retry calls saved per 100 such answers', String(Math.round((100 * (now - before)) / CORPUS.length))],
    ['answers that threw into the turn', String(threw)],
    ...[...byKind.entries()].map(([kind, [b, n, total]]) => [`  ${kind}`, `${b} → ${n} of ${total}`] as [string, string]),
  ]);
}
