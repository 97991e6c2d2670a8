import { describe, expect, it } from 'vitest';
import { analysisSchema, FALLBACK_ANALYSIS } from '../../src/engine/analysis/turn-analysis.ts';
import { classify } from '../../src/engine/llm/classify.ts';
import { CORPUS } from '../fixtures/analysis-answers.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';

// JSON as models write it (issue 35, part 2): the analysis corpus, each answer as a first call's.
const schema = analysisSchema(['Ada -> Mira', 'Mira -> Ada'], false);

async function firstCall(text: string) {
  const llm = scriptedLlm(text, 'nothing', 'nothing');
  const failures: string[] = [];
  const result = await classify(
    { llm: llm.client, model: 'classifier', fallbacks: [], timeoutMs: 5_000, recordFailure: (f) => failures.push(f.error) },
    schema,
    { system: 'Analyse the turn.', user: 'Ada asks Mira about the map.' },
    { task: 'analysis', fallback: FALLBACK_ANALYSIS },
  );
  return { result, failures };
}

describe('the analysis corpus', () => {
  it('holds at least 60 answers of every kind real models give', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CORPUS.map((answer) => answer.kind))).toEqual(new Set(['clean', 'fenced', 'chatty', 'thinking', 'syntax', 'truncated', 'wrong types', 'extra keys', 'refusal', 'empty', 'prose']));
  });

  it('reads at least 90 % of the recoverable answers without a retry call, and never throws', async () => {
    const missed: string[] = [];
    for (const answer of CORPUS.filter((a) => a.recoverable)) {
      const { result } = await firstCall(answer.text);
      if (!(result.ok && result.calls === 1)) missed.push(answer.name);
    }
    const recoverable = CORPUS.filter((a) => a.recoverable).length;
    expect(missed.length / recoverable, `missed: ${missed.join('; ')}`).toBeLessThanOrEqual(0.1);
  });

  it('asks again for the unrecoverable ones, then goes on with the fallback, never throwing', async () => {
    for (const answer of CORPUS.filter((a) => !a.recoverable)) {
      const { result, failures } = await firstCall(answer.text);
      expect(result, answer.name).toMatchObject({ ok: false, value: FALLBACK_ANALYSIS, calls: 2 });
      expect(failures, answer.name).toHaveLength(1);
    }
  });

  it('reads the parts a model got right from what it got wrong, and drops thinking full of braces', async () => {
    const byName = (name: string) => CORPUS.find((a) => a.name === name)!.text;
    expect((await firstCall(byName('minutes as a string'))).result.value).toMatchObject({ minutesPassed: 5, significance: 1 });
    expect((await firstCall(byName('significance as a word'))).result.value).toMatchObject({ minutesPassed: 90, significance: 1, newPlace: 'the lighthouse' });
    expect((await firstCall(byName('think tags with JSON draft inside'))).result.value).toMatchObject({ minutesPassed: 90, sceneEnd: 'place_changed' });
    expect((await firstCall(byName('truncated at 40 %'))).result.value).toMatchObject({ minutesPassed: 5, significance: 1, sceneEnd: 'none' });
  });
});
