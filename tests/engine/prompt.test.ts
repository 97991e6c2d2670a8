import { describe, expect, it } from 'vitest';
import { assemblePrompt, type PromptPart } from '../../src/engine/turn/prompt.ts';
import { FRAMING } from '../../src/engine/turn/tokenizer-family.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';

const words = (n: number, word = 'story') => Array.from({ length: n }, () => word).join(' ');

function parts(): PromptPart[] {
  return [
    { tier: 'must', label: 'persona', slot: 'system', text: `You are Mira. ${words(200, 'captain')}`, keep: 0 },
    { tier: 'must', label: 'scene', slot: 'system', text: `The deck of the Gull, at night. ${words(100, 'deck')}`, keep: 0 },
    { tier: 'should', label: 'edge', slot: 'system', text: `Mira trusts Ada. ${words(300, 'trust')}`, keep: 2 },
    { tier: 'should', label: 'memory 1', slot: 'system', text: `Ada hid the map. ${words(300, 'map')}`, keep: 1 },
    ...Array.from({ length: 10 }, (_, i): PromptPart => ({
      tier: i < 6 ? 'nice' : 'should',
      label: `turn ${i}`,
      slot: 'history',
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: `turn ${i}: ${words(250, 'wave')}`,
      keep: i,
    })),
    { tier: 'must', label: 'new turn', slot: 'history', role: 'user', text: '"Where are we headed?"', keep: 0 },
  ];
}

describe('prompt assembly in tiers', async () => {
  const count = await loadTokenCounter();

  it('keeps everything when it fits, in story order, with alternating roles', () => {
    const prompt = assemblePrompt(parts(), { hard: 100_000, soft: 100_000 }, count);
    expect(prompt.dropped).toEqual([]);
    expect(prompt.messages[0]!.role).toBe('system');
    expect(prompt.messages[0]!.content).toMatch(/^You are Mira/);
    expect(prompt.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(prompt.messages.at(-1)!.content).toBe('"Where are we headed?"');
  });

  it('drops NICE parts first, oldest first, until under the soft budget', () => {
    const full = assemblePrompt(parts(), { hard: 100_000, soft: 100_000 }, count).tokens;
    const prompt = assemblePrompt(parts(), { hard: full, soft: full - 700 }, count);
    expect(prompt.dropped).toEqual(['turn 0', 'turn 1', 'turn 2']);
    expect(prompt.tokens).toBeLessThanOrEqual(full - 700);
  });

  it('drops SHOULD parts only past the hard budget, lowest keep first, after every NICE part', () => {
    const prompt = assemblePrompt(parts(), { hard: 2_000, soft: 1_000 }, count);
    const niceGone = ['turn 0', 'turn 1', 'turn 2', 'turn 3', 'turn 4', 'turn 5'];
    expect(prompt.dropped.slice(0, 6)).toEqual(niceGone);
    expect(prompt.dropped.slice(6)).toEqual(['memory 1']);
    expect(prompt.tokens).toBeLessThanOrEqual(2_000);
    const tighter = assemblePrompt(parts(), { hard: 1_200, soft: 1_000 }, count);
    expect(tighter.dropped).toEqual([...niceGone, 'memory 1', 'edge', 'turn 6', 'turn 7']);
    expect(tighter.tokens).toBeLessThanOrEqual(1_200);
  });

  it('never trims MUST, even when MUST alone is over the hard budget', () => {
    const prompt = assemblePrompt(parts(), { hard: 100, soft: 50 }, count);
    const kept = prompt.messages.map((m) => m.content).join('\n');
    expect(kept).toMatch(/You are Mira/);
    expect(kept).toMatch(/The deck of the Gull/);
    expect(kept).toMatch(/Where are we headed/);
    expect(prompt.dropped).not.toContain('persona');
    expect(prompt.dropped).not.toContain('new turn');
    expect(prompt.tokensByTier.should + prompt.tokensByTier.nice).toBe(0);
    expect(prompt.overHardBudget).toBe(true);
  });

  it('counts tokens with a safety margin over cl100k', () => {
    expect(count('hello world')).toBe(Math.ceil(2 * 1.1));
  });

  it("costs each part its template's framing where the family's tokenizer counts: a message's, a system part's join, the prompt's start once", () => {
    const plain = (text: string) => count(text);
    const textOnly = parts().reduce((sum, part) => sum + plain(part.text), 0);
    const systemParts = parts().filter((p) => p.slot === 'system').length;
    const replies = parts().filter((p) => p.role === 'assistant').length;
    const players = parts().length - systemParts - replies;
    const everything = { hard: 100_000, soft: 100_000 };
    expect(assemblePrompt(parts(), everything, count).tokens).toBe(textOnly + 4 * parts().length);
    expect(assemblePrompt(parts(), everything, count, FRAMING.llama3).tokens).toBe(textOnly + systemParts * 1 + (players + replies) * 5 + 10);
    const nemo = assemblePrompt(parts(), everything, count, FRAMING['mistral-nemo']);
    expect(nemo.tokens).toBe(textOnly + systemParts * 1 + players * 2 + replies * 1 + 3);
    expect(nemo.parts.find((p) => p.label === 'turn 1')!.tokens).toBe(plain(parts()[5]!.text) + 1);
  });
});
