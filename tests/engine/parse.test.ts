import { describe, expect, it } from 'vitest';
import { closingMarker, inCharacterText, parseUserText } from '../../src/engine/turn/parse.ts';

const parse = (text: string, oocMarker = '((') => parseUserText(text, { oocMarker });

describe('parsing what the user wrote', () => {
  it('splits dialogue, action, OOC and narration in order', () => {
    expect(parse('*leans on the rail* "Think the storm will pass?" ((brb, coffee)) She waits.')).toEqual([
      { type: 'action', text: 'leans on the rail' },
      { type: 'dialogue', text: 'Think the storm will pass?' },
      { type: 'ooc', text: 'brb, coffee' },
      { type: 'narration', text: 'She waits.' },
    ]);
  });

  it('keeps OOC away from the narrator, even unclosed or inside quotes', () => {
    expect(inCharacterText(parse('"Hello" ((make her grumpy'))).toBe('"Hello"');
    expect(inCharacterText(parse('"Wait ((not this)) here" she says'))).not.toMatch(/not this/);
    expect(inCharacterText(parse('((only ooc))'))).toBe('');
  });

  it('uses the configured marker and mirrors its closer', () => {
    expect(closingMarker('((')).toBe('))');
    expect(closingMarker('[[')).toBe(']]');
    expect(closingMarker('//')).toBe('//');
    expect(parse('hi [[ooc here]] there', '[[')).toEqual([
      { type: 'narration', text: 'hi' },
      { type: 'ooc', text: 'ooc here' },
      { type: 'narration', text: 'there' },
    ]);
    expect(parse('hi ((not ooc)) there', '[[')).toEqual([{ type: 'narration', text: 'hi ((not ooc)) there' }]);
  });

  it('treats a lone quote or asterisk as text, and handles curly quotes', () => {
    expect(parse('5 * 3 is fifteen')).toEqual([{ type: 'narration', text: '5 * 3 is fifteen' }]);
    expect(parse('“Curly,” she said')).toEqual([
      { type: 'dialogue', text: 'Curly,' },
      { type: 'narration', text: 'she said' },
    ]);
  });

  it('is deterministic and loses no in-character text', () => {
    const text = '*waves* "Hi!" and then *grins* "Bye."';
    expect(parse(text)).toEqual(parse(text));
    expect(inCharacterText(parse(text))).toBe('*waves* "Hi!" and then *grins* "Bye."');
  });
});
