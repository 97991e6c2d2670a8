import { describe, expect, it } from 'vitest';
import { createReplyCutter, stopStringsFor } from '../../src/engine/turn/reply-cut.ts';

/** A reply streamed in `chunks`: what was shown after each piece, and what came of it. */
function stream(chunks: string[]) {
  const cutter = createReplyCutter({ stopAt: ['\nAda:', '\nYou:', '\nTheo:'], labels: ['Mira'] });
  const shown: string[] = [];
  let text = '';
  let stoppedAt: string | undefined;
  let trimmedLabel: string | undefined;
  for (const cut of [...chunks.map((chunk) => cutter.push(chunk)), cutter.end()]) {
    text += cut.out;
    shown.push(text);
    stoppedAt ??= cut.stoppedAt;
    trimmedLabel ??= cut.trimmedLabel;
  }
  return { text, shown, stoppedAt, trimmedLabel };
}

describe('a reply cut where a person would', () => {
  const cases: [string, string, { text: string; stoppedAt?: string; trimmedLabel?: string }][] = [
    ['runs on into the player\'s line', 'She nods.\nAda: Fine, then.', { text: 'She nods.', stoppedAt: '\nAda:' }],
    ['runs on as "You"', 'She nods.\n\nYou: and then', { text: 'She nods.', stoppedAt: '\nYou:' }],
    ['runs on into another character', 'A smile.\nTheo: Hey.\nAda: Hi.', { text: 'A smile.', stoppedAt: '\nTheo:' }],
    ['starts with its speaker\'s label', 'Mira: "Aye."', { text: '"Aye."', trimmedLabel: 'Mira:' }],
    ['a bold label, then runs on', '**Mira:** Aye.\nYou: go', { text: 'Aye.', trimmedLabel: '**Mira:**', stoppedAt: '\nYou:' }],
    ['a name in the prose is no label', 'Miranda waves.\nYouth is wasted.', { text: 'Miranda waves.\nYouth is wasted.' }],
  ];

  it.each(cases)('%s: the same however it streams, and nothing shown is taken back', (_name, reply, expected) => {
    for (let at = 1; at < reply.length; at++) {
      const run = stream([reply.slice(0, at), reply.slice(at)]);
      expect({ text: run.text, stoppedAt: run.stoppedAt, trimmedLabel: run.trimmedLabel }, `cut at ${at}`).toEqual({ stoppedAt: undefined, trimmedLabel: undefined, ...expected });
    }
    const byCharacter = stream([...reply]);
    expect(byCharacter.text).toBe(expected.text);
    // Every text shown is the start of the final one: a tab never shows words that then go.
    for (const shown of byCharacter.shown) expect(expected.text.startsWith(shown)).toBe(true);
  });

  it('builds its stop strings from the player, "You", the others present and the player\'s own', () => {
    expect(stopStringsFor({ player: 'Ada', others: ['Theo'], ownStops: ['THE END', '\\n***'] })).toEqual(['\nAda:', '\nYou:', '\nTheo:', 'THE END', '\n***']);
  });
});
