import { describe, expect, it } from 'vitest';
import { deltaOf, textFromDelta } from '../../src/engine/turn/text-delta.ts';

const feelings = (facts: string[], affinity: number) =>
  `Mira toward Ada: affinity ${affinity}/100, trust 60/100. Old friends.\nMira knows about Ada: ${facts.join('; ')}.\nMira last saw Ada at the harbour.`;
const FACTS = Array.from({ length: 30 }, (_, i) => `Ada told her about the ${['lighthouse', 'ledger', 'storm', 'sister', 'debt'][i % 5]} on day ${i}`);

describe('a text as what it shares with an earlier one', () => {
  it('gives back exactly the text, whatever the two texts are', async () => {
    const fc = await import('fast-check');
    // Few letters and many separators, so the texts share pieces and cut them in every way.
    const char = fc.constantFrom(...'ab \n;,.\t日😀'.split(''), 'ab', 'the lantern; ');
    const text = fc.array(char, { maxLength: 80 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, (base, next) => {
        expect(textFromDelta(base, deltaOf(base, next))).toBe(next);
      }),
      { numRuns: 3_000 },
    );
  });

  it('keeps a text that gained a fact and changed a number as slices of the earlier one and the new words', () => {
    const base = feelings(FACTS.slice(0, 20), 61);
    const next = feelings([...FACTS.slice(0, 20), 'Ada keeps a silver key'], 62);
    const delta = deltaOf(base, next);
    expect(textFromDelta(base, delta)).toBe(next);
    const words = delta.filter((piece) => typeof piece === 'string').join('');
    expect(words).toContain('Ada keeps a silver key');
    expect(words).toContain('62/100');
    expect(words).not.toContain('lighthouse');
    expect(JSON.stringify(delta).length).toBeLessThan(next.length / 5);
  });

  it('keeps the unchanged words of lines whose every time moved on (the open threads, told how long ago each began)', () => {
    const topics = ['the lighthouse', 'the ledger', 'the storm', 'her sister', 'the debt', 'the silver key'];
    const threads = (minutes: number) =>
      `Open threads (promises, quests, secrets and questions the story has not settled; pick them up when it fits):\n${topics.map((topic, i) => `- question, since ${minutes + 5 * i} minutes ago: What about ${topic}? It has not been answered yet.`).join('\n')}`;
    const [base, next] = [threads(10), threads(11)];
    const delta = deltaOf(base, next);
    expect(textFromDelta(base, delta)).toBe(next);
    const words = delta.filter((piece) => typeof piece === 'string').join('');
    expect(words).not.toContain('It has not been answered yet');
    expect(words).not.toContain('What about');
    expect(JSON.stringify(delta).length).toBeLessThan((next.length * 3) / 4);
  });

  it('read against a text too short for its slices, it is null, never other words', () => {
    const base = feelings(FACTS.slice(0, 20), 61);
    const delta = deltaOf(base, feelings(FACTS.slice(0, 21), 61));
    expect(textFromDelta('short', delta)).toBeNull();
  });
});
