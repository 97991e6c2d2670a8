import { describe, expect, it } from 'vitest';
import { inlineSpans, plainText } from '../../src/ui/chat/inline-spans.ts';
import { storyBlocks } from '../../src/ui/chat/story-markdown.ts';

describe('story text', () => {
  it('shows an action cut off before its closing * (a reply stopped mid-action) as an action, with no stray *', () => {
    expect(inlineSpans('She turns. *She reaches for the lan')).toEqual([
      { kind: 'text', text: 'She turns. ' },
      { kind: 'italic', text: 'She reaches for the lan' },
    ]);
    expect(inlineSpans('*Waves* and *smiles*')).toEqual([
      { kind: 'italic', text: 'Waves' },
      { kind: 'text', text: ' and ' },
      { kind: 'italic', text: 'smiles' },
    ]);
    expect(inlineSpans('**Bold** stays bold.')).toEqual([{ kind: 'bold', text: 'Bold' }, { kind: 'text', text: ' stays bold.' }]);
  });

  it('reads as plain words in a one-line preview: marks gone, asides left out', () => {
    expect(plainText('*Waves*  and says "hi" ((ooc: brb))\n\n**Loudly.**')).toBe('Waves and says "hi" Loudly.');
    expect(plainText('# Status\n- HP: <b>10</b>\n> ~~old~~ `new`\n---\n```\ncode\n```')).toBe('Status HP: 10 old new code');
  });
});


describe('story blocks', () => {
  it('splits a reply into its top-level blocks, each with its own markdown', () => {
    expect(storyBlocks('# Title\nFirst line\n\n- a\n- b\n\n```\ncode\n\nmore\n```\n\nLast.').map((raw) => raw.trim())).toEqual([
      '# Title',
      'First line',
      '- a\n- b',
      '```\ncode\n\nmore\n```',
      'Last.',
    ]);
  });

  it('closes an action cut off before its closing * (a reply stopped mid-action), and leaves lists and closed actions be', () => {
    expect(storyBlocks('She turns. *She reaches for the lan')).toEqual(['She turns. *She reaches for the lan*']);
    expect(storyBlocks('*Waves* and *smiles*')).toEqual(['*Waves* and *smiles*']);
    expect(storyBlocks('* one\n* two').join('')).toBe('* one\n* two');
  });

  it('keeps prose indented by four spaces as prose, not code', () => {
    expect(storyBlocks('    She waits by the door.').map((raw) => raw.trim())).toEqual(['She waits by the door.']);
  });
});
