import { describe, expect, it } from 'vitest';
import { countedAside, estimateTokens, loadTokenCounter } from '../../src/engine/turn/tokens.ts';

describe('counting tokens without waiting', () => {
  it('answers an estimate at once, asks for each new text once, and is exact once told', () => {
    const asked: string[] = [];
    const aside = countedAside((text) => asked.push(text));
    const text = 'The storm broke over the harbour.';
    expect(aside.count(text)).toBe(estimateTokens(text));
    expect(aside.count(text)).toBe(estimateTokens(text));
    expect(asked).toEqual([text]);
    aside.learn(text, 9);
    expect(aside.count(text)).toBe(9);
    expect(asked).toEqual([text]);
  });

  it('estimates a little high, for English and for CJK text alike', async () => {
    const exact = await loadTokenCounter();
    for (const text of ['The storm broke over the harbour while Mira held the lantern high and laughed at the thunder.', '嵐が港を襲い、ミラはランタンを高く掲げて雷に笑った。', '폭풍이 항구를 덮쳤다.']) {
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(exact(text) * 0.8);
    }
  });
});
