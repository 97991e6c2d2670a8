import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { readJson, withoutThinking } from '../../src/engine/llm/read-json.ts';
import { LlmError } from '../../src/engine/llm/port.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';

const analysis = z.object({
  significance: z.number().int().min(0).max(3),
  minutesPassed: z.number().int().min(0),
  facts: z.array(z.string()),
});
const fallback = { significance: 1, minutesPassed: 0, facts: [] };
const prompt = { system: 'You analyse roleplay turns.', user: 'Mira handed Ada the map.' };
const good = '{"significance": 2, "minutesPassed": 5, "facts": ["Ada has the map"]}';

let engine: Engine;
let db: Db;
beforeEach(async () => {
  ({ engine, db } = await openTestEngine());
});

describe('classify', () => {
  it('returns the validated value from the classifier model, asking for JSON with the schema in the prompt', async () => {
    const llm = scriptedLlm(good);
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(result).toMatchObject({ ok: true, model: 'NousResearch/Hermes-3-Llama-3.1-8B', calls: 1 });
    expect(result.value.facts).toEqual(['Ada has the map']);
    const [call] = llm.calls;
    expect(call!.options).toMatchObject({ model: 'NousResearch/Hermes-3-Llama-3.1-8B', json: true, priority: 'analysis' });
    expect(call!.messages[0]!.content).toMatch(/"significance"/);
    expect(engine.classifierFailures()).toEqual([]);
  });

  it('tolerates code fences and chatter around the JSON', async () => {
    const llm = scriptedLlm(`Sure! Here it is:\n\`\`\`json\n${good}\n\`\`\`\nHope that helps.`);
    expect((await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback })).value.significance).toBe(2);
  });

  it('retries once with a stricter instruction that says what was wrong', async () => {
    const llm = scriptedLlm('{"significance": "very", "minutesPassed": 5}', good);
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(result).toMatchObject({ ok: true, calls: 2 });
    const retry = llm.calls[1]!.messages;
    expect(retry.at(-2)).toMatchObject({ role: 'assistant', content: '{"significance": "very", "minutesPassed": 5}' });
    expect(retry.at(-1)!.content).toMatch(/significance: .*number/i);
    expect(retry.at(-1)!.content).toMatch(/facts/);
    expect(engine.classifierFailures()).toEqual([]);
  });

  it('walks the fallback models after the classifier model gives up, recording its failure', async () => {
    const llm = scriptedLlm('I cannot help with that.', 'still not json', good);
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(result).toMatchObject({ ok: true, model: 'cognitivecomputations/dolphin-2.9.4-llama3-8b', calls: 3 });
    expect(llm.calls.map((c) => c.options.model)).toEqual([
      'NousResearch/Hermes-3-Llama-3.1-8B',
      'NousResearch/Hermes-3-Llama-3.1-8B',
      'cognitivecomputations/dolphin-2.9.4-llama3-8b',
    ]);
    expect(engine.classifierFailures()).toMatchObject([
      { task: 'analysis', model: 'NousResearch/Hermes-3-Llama-3.1-8B', attempts: 2, raw: 'still not json', error: 'no JSON object in the answer' },
    ]);
  });

  it('detects a refusal as such', async () => {
    const llm = scriptedLlm("I'm sorry, but I can't analyse this.", "I'm sorry, but I can't.", 'x', 'x');
    await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(engine.classifierFailures().at(-1)?.error).toBe('the model refused instead of answering');
  });

  it('returns the fallback when every model fails, never throwing, with each failure recorded and raw text cut short', async () => {
    const long = `{"oops": "${'x'.repeat(5_000)}"}`;
    const llm = scriptedLlm(long, long, new LlmError('upstream_busy', 'The model server is busy', 429), 'garbage');
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback, chatId: null });
    expect(result).toEqual({ value: fallback, ok: false, model: null, calls: 4 });
    const failures = engine.classifierFailures();
    expect(failures.map((f) => [f.model, f.attempts])).toEqual([
      ['mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated', 1],
      ['cognitivecomputations/dolphin-2.9.4-llama3-8b', 1],
      ['NousResearch/Hermes-3-Llama-3.1-8B', 2],
    ]);
    expect(failures.at(-1)!.raw.length).toBe(2_000);
    expect(failures[1]!.error).toMatch(/upstream_busy/);
  });

  it('gives each call its own timeout and moves on', async () => {
    engine.changeSettings({ classifierTimeoutMs: 1_000, classifierFallbacks: [] });
    const llm = scriptedLlm('hang', good);
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(result.ok).toBe(true);
    expect(llm.calls[0]!.options.signal?.aborted).toBe(true);
  });

  it('stops at once, without recording a failure, when the caller cancels', async () => {
    const controller = new AbortController();
    const llm = scriptedLlm('hang', good, good);
    const pending = engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, value: fallback, calls: 1 });
    expect(engine.classifierFailures()).toEqual([]);
  });

  it('reads JSON as models write it, or says precisely why not', () => {
    expect(readJson('{"a": 1}')).toEqual({ a: 1 });
    expect(readJson("<think>{draft}</think> Sure: {'a': 1, b: [2,], // done\n}")).toEqual({ a: 1, b: [2] });
    expect(readJson('{"a": 1, "b": {"c": "walk', ['a'])).toEqual({ a: 1, b: { c: 'walk' } });
    expect(readJson('{"analysis": {"a": 1}}', ['a'])).toEqual({ a: 1 });
    expect(() => readJson('no braces here')).toThrow('no JSON object in the answer');
    expect(() => readJson('{"b": 1}', ['a'])).toThrow('no JSON object in the answer');
    expect(() => readJson('<think>still going {')).toThrow('the answer held only thinking');
    expect(() => readJson('  ')).toThrow('the answer was empty');
  });

  it('drops thinking: whole blocks, a block whose opening the template wrote, a block never closed', () => {
    expect(withoutThinking('<think>a {b}</think>answer')).toBe('answer');
    expect(withoutThinking('<Thinking>\nx\n</Thinking>\nanswer')).toBe('\nanswer');
    expect(withoutThinking('opened by the template</think>answer')).toBe('answer');
    expect(withoutThinking('answer<think>cut off')).toBe('answer');
  });

  it('keeps the parts a model got right and takes the fallback for the one it got wrong, with no retry', async () => {
    const llm = scriptedLlm('{"significance": "very", "minutesPassed": "5", "facts": ["Ada has the map"]}');
    const result = await engine.classify(llm.client, analysis, prompt, { task: 'analysis', fallback });
    expect(result).toMatchObject({ ok: true, calls: 1, value: { significance: 1, minutesPassed: 5, facts: ['Ada has the map'] } });
  });
});

describe('settings', () => {
  it('start from the seed defaults', () => {
    expect(engine.settings()).toEqual({
      narrativeModel: 'dphn/Dolphin-Mistral-24B-Venice-Edition',
      classifierModel: 'NousResearch/Hermes-3-Llama-3.1-8B',
      classifierFallbacks: ['cognitivecomputations/dolphin-2.9.4-llama3-8b', 'mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated'],
      oocMarker: '((',
      retrievalK: 4,
      narrativeBudget: { hard: 8000, soft: 6000 },
      classifierBudget: 4000,
      classifierTimeoutMs: 10000,
      sampler: { temperature: 0.9, topP: 1, minP: 0, repetitionPenalty: 1, maxTokens: 700 },
      stopStrings: [],
      budgetFromModel: true,
    });
  });

  it('change by events, survive a rebuild, and refuse invalid values with nothing written', () => {
    engine.changeSettings({ retrievalK: 6, narrativeModel: '  other/model-24b ' });
    expect(engine.settings()).toMatchObject({ retrievalK: 6, narrativeModel: 'other/model-24b' });
    engine.rebuild();
    expect(engine.settings().retrievalK).toBe(6);
    const head = engine.headSeq();
    expect(() => engine.changeSettings({ narrativeBudget: { hard: 4000, soft: 6000 } })).toThrow(/soft budget must not exceed/);
    expect(() => engine.changeSettings({ oocMarker: 'ab' })).toThrow(/oocMarker/);
    expect(() => engine.changeSettings({ colour: 'red' } as never)).toThrow(/colour: not a setting/);
    expect(engine.headSeq()).toBe(head);
  });

  it('fall back one by one when a stored value no longer passes: one bad value resets one setting, not all', () => {
    engine.changeSettings({ retrievalK: 6, oocMarker: '[[' });
    // As if a later version had tightened a rule: the stored value is now out of range.
    db.run("UPDATE settings SET value = '500' WHERE key = 'retrievalK'");
    expect(engine.settings()).toMatchObject({ retrievalK: 4, oocMarker: '[[' });
  });
});
