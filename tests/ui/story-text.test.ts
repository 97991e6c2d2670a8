import { describe, expect, it } from 'vitest';
import { inlineSpans, plainText } from '../../src/ui/chat/inline-spans.ts';

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
  });
});

