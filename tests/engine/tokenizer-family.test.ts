import { describe, expect, it } from 'vitest';
import { familyOrCl100k } from '../../src/engine/turn/family-tokenizer.ts';
import { TOKENIZER_FAMILIES, tokenizerFamilyOf, type TokenizerFamily } from '../../src/engine/turn/tokenizer-family.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { nodeTokens, tokenizerFilesOf } from '../support/family-tokenizers.ts';

// Each model family's own tokenizer (issue 35, part 3).
describe("a model's tokenizer family", () => {
  it('is read from the ids players run (finetunes name their base), and from the server’s class where the name does not say', () => {
    const cases: [string, string | null, TokenizerFamily | null][] = [
      ['meta-llama/Meta-Llama-3.1-8B-Instruct', null, 'llama3'],
      ['Sao10K/L3.3-70B-Euryale-v2.3', null, 'llama3'],
      ['Sao10K/L3-8B-Stheno-v3.2', null, 'llama3'],
      ['nvidia/Llama-3.1-Nemotron-70B-Instruct-HF', null, 'llama3'],
      ['deepseek-ai/DeepSeek-R1-Distill-Llama-70B', null, 'llama3'],
      ['mistralai/Mistral-Nemo-Instruct-2407', null, 'mistral-nemo'],
      ['nothingiisreal/MN-12B-Celeste-V1.9', null, 'mistral-nemo'],
      ['dphn/Dolphin-Mistral-24B-Venice-Edition', null, 'mistral-nemo'],
      ['mistralai/Mistral-Small-3.1-24B-Instruct-2503', null, 'mistral-nemo'],
      ['TheDrummer/Rocinante-12B-v1.1', 'mistral-nemo-12b-lc', 'mistral-nemo'],
      ['Qwen/Qwen2.5-72B-Instruct', null, 'qwen2'],
      ['Qwen/QwQ-32B', null, 'qwen2'],
      ['Qwen/Qwen3-32B', null, 'qwen2'],
      ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', null, 'qwen2'],
      ['anthracite-org/magnum-v4-72b', 'qwen25-72b-lc', 'qwen2'],
      ['google/gemma-3-27b-it', null, 'gemma3'],
      ['google/gemma-2-9b-it', null, 'gemma3'],
      // No shipped tokenizer is theirs: counted with cl100k and its margin.
      ['TheDrummer/Rocinante-12B-v1.1', null, null],
      ['mistralai/Mistral-7B-Instruct-v0.3', null, null],
      ['meta-llama/Llama-4-Scout-17B-16E-Instruct', null, null],
      ['deepseek-ai/DeepSeek-V3-0324', null, null],
      ['demo', null, null],
    ];
    expect(cases.map(([id, modelClass]) => tokenizerFamilyOf(id, modelClass))).toEqual(cases.map(([, , family]) => family));
  });

  it("counts with the family's own tokenizer, text only (no start token), and differs from cl100k where the families differ", async () => {
    const cl100k = await loadTokenCounter();
    const japanese = 'ミラは古い灯台で銀の鍵を見つけた。「遅いよ、エイダ。嵐は誰も待ってくれない」'.repeat(8);
    for (const family of TOKENIZER_FAMILIES) {
      const count = await nodeTokens(family);
      // "Hello" and " world": one token each in every one of these vocabularies.
      expect([family, count('Hello world')]).toEqual([family, 2]);
      expect([family, count('')]).toEqual([family, 0]);
      // cl100k with its margin counts Japanese far higher than these multilingual vocabularies do.
      expect(count(japanese)).toBeLessThan(cl100k(japanese) * 0.85);
    }
  });

  it('falls back to cl100k with its margin, and says so, when the family’s files cannot be had', async () => {
    const failures: unknown[] = [];
    const offline = await familyOrCl100k('llama3', () => Promise.reject(new Error('offline')), (error) => failures.push(error));
    expect(offline.countedWith).toBe('cl100k');
    expect(offline.count('Hello world')).toBe((await loadTokenCounter())('Hello world'));
    expect(failures).toHaveLength(1);
    const damaged = await familyOrCl100k('qwen2', async () => ({ tokenizer: { model: 'not a tokenizer' }, config: {} }), (error) => failures.push(error));
    expect(damaged.countedWith).toBe('cl100k');
    expect(failures).toHaveLength(2);
    const loaded = await familyOrCl100k('qwen2', async () => tokenizerFilesOf('qwen2'), (error) => failures.push(error));
    expect([loaded.countedWith, loaded.count('Hello world'), failures.length]).toEqual(['qwen2', 2, 2]);
  });
});
