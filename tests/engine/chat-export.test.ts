import { describe, expect, it } from 'vitest';
import { openStory } from '../support/story.ts';

describe('exporting a chat', () => {
  async function played() {
    const story = await openStory();
    const { engine, chat } = story;
    const say = (line: string, reply: string) => {
      const turn = engine.turns.beginTurn(chat, line);
      engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
    };
    say('"Where to?" ((is this the harbour?))', 'North, says Mira.');
    engine.closeScene(chat);
    say('"And then?"', 'First version.');
    const again = engine.turns.regenerate(chat);
    engine.turns.finishTurn(again, { text: 'Second version.', usage: null, truncated: false, reason: null, error: null });
    engine.chooseVersion(chat, 1);
    return story;
  }

  it('as SillyTavern JSON lines: a header naming you and the bot, each message in order, a reply’s versions as swipes with the shown one chosen', async () => {
    const { engine, chat } = await played();
    const lines = engine.exportChat(chat, 'sillytavern').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ user_name: 'Ada', character_name: 'Mira', chat_metadata: {} });
    const messages = lines.slice(1);
    expect(messages.map((m) => [m.name, m.is_user, m.mes])).toEqual([
      ['Mira', false, expect.any(String)],
      ['Ada', true, '"Where to?" ((is this the harbour?))'],
      ['Mira', false, 'North, says Mira.'],
      ['Ada', true, '"And then?"'],
      ['Mira', false, 'First version.'],
    ]);
    expect(messages.at(-1)).toMatchObject({ swipes: ['First version.', 'Second version.'], swipe_id: 0, is_system: false, extra: {} });
    expect(messages[1].send_date).toMatch(/^[A-Z][a-z]+ \d{1,2}, \d{4} \d{1,2}:\d{2}(am|pm)$/);
  });

  it('as Markdown: speakers in bold, a rule at each new scene, asides marked as out of character', async () => {
    const { engine, chat } = await played();
    const markdown = engine.exportChat(chat, 'markdown');
    expect(markdown.startsWith(`# ${engine.chatState(chat)!.title}\n`)).toBe(true);
    expect(markdown).toContain('**Ada:** "Where to?" *(out of character: is this the harbour?)*');
    expect(markdown).toMatch(/\*\*Mira:\*\* North, says Mira\.\n\n---\n\n\*\*Ada:\*\* "And then\?"/);
    expect(markdown).not.toContain('Second version.');
  });
});
