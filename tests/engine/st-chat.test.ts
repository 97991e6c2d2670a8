import { describe, expect, it } from 'vitest';
import { parseSillyTavernChat, stDate } from '../../src/engine/cards/st-chat.ts';
import { openStory } from '../support/story.ts';

const header = JSON.stringify({ user_name: 'Ada', character_name: 'Mira', create_date: '2026-11-23@23h12m49s', chat_metadata: { note_prompt: '' } });
const line = (over: Record<string, unknown>) => JSON.stringify({ name: 'Mira', is_user: false, is_system: false, send_date: 'June 3, 2023 1:23am', mes: 'Hi.', extra: {}, ...over });

describe('reading a SillyTavern chat file', () => {
  it('reads the header and every message in order, swipes with the chosen one, dates when it can', () => {
    const chat = parseSillyTavernChat(
      [header, line({ mes: 'Welcome aboard.' }), line({ name: 'Ada', is_user: true, mes: '"Hello."', send_date: '2023-06-03T01:24:00.000Z' }), line({ mes: 'Second.', swipes: ['First.', 'Second.', 'Third.'], swipe_id: 1 }), ''].join('\n'),
    );
    expect(chat).toMatchObject({ userName: 'Ada', characterName: 'Mira' });
    expect(chat.messages.map((m) => [m.line, m.name, m.isUser, m.text])).toEqual([
      [2, 'Mira', false, 'Welcome aboard.'],
      [3, 'Ada', true, '"Hello."'],
      [4, 'Mira', false, 'Second.'],
    ]);
    expect(chat.messages[2]).toMatchObject({ swipes: ['First.', 'Second.', 'Third.'], swipeId: 1 });
    expect(chat.messages[0]!.sentAt).toBe(Date.UTC(2023, 5, 3, 1, 23));
    expect(chat.messages[1]!.sentAt).toBe(Date.UTC(2023, 5, 3, 1, 24));
    expect(stDate('sometime')).toBeNull();
  });

  it('reads back what the app exports', async () => {
    const { engine, chat } = await openStory();
    const turn = engine.turns.beginTurn(chat, '"Where to?"');
    engine.turns.finishTurn(turn, { text: 'North.', usage: null, truncated: false, reason: null, error: null });
    const again = engine.turns.regenerate(chat);
    engine.turns.finishTurn(again, { text: 'South.', usage: null, truncated: false, reason: null, error: null });
    const read = parseSillyTavernChat(engine.exportChat(chat, 'sillytavern'));
    expect(read.messages.map((m) => [m.name, m.isUser, m.text])).toEqual([
      ['Mira', false, expect.any(String)],
      ['Ada', true, '"Where to?"'],
      ['Mira', false, 'South.'],
    ]);
    expect(read.messages[2]).toMatchObject({ swipes: ['North.', 'South.'], swipeId: 1 });
    expect(read.messages.every((m) => m.sentAt !== null)).toBe(true);
  });

  it('refuses a bad line naming it, before anything is used', () => {
    expect(() => parseSillyTavernChat([header, line({}), '{"name": "Mira", '].join('\n'))).toThrow(/^Line 3 is not JSON/);
    expect(() => parseSillyTavernChat([header, line({ mes: 42 })].join('\n'))).toThrow(/Line 2 has no message text/);
    expect(() => parseSillyTavernChat([header, '[1, 2]'].join('\n'))).toThrow(/Line 2 is not a JSON object/);
    expect(() => parseSillyTavernChat([line({}), line({})].join('\n'))).toThrow(/not a SillyTavern chat/);
  });
});
