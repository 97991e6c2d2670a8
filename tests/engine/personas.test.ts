import { describe, expect, it } from 'vitest';
import { chat, count, engine, freshStoryEachTest } from '../support/story-per-test.ts';

freshStoryEachTest();

/** A line of the player's, answered. */
function say(text: string) {
  const turn = engine.turns.beginTurn(chat, text);
  engine.turns.finishTurn(turn, { text: 'Mira nods.', usage: null, truncated: false, reason: null, error: null });
}
const you = () => engine.narratorPrompt(chat, engine.headSeq() + 1, count).parts.find((p) => p.label === 'you')!.text;
const mine = () => engine.transcript(chat).turns.filter((t) => t.role === 'user').map((t) => `${t.speakerName}: ${t.text}`);

describe('personas: several "you"s', () => {
  it('a chat plays its chosen persona from that line on: the lines before keep who wrote them, the narrator is told the new one', () => {
    const first = engine.getYou()!.name;
    say('"Hello."');
    const kit = engine.savePersona({ name: 'Kit', pronouns: 'they/them', persona: 'A smuggler with a soft heart.' }, null);
    expect(engine.listPersonas().map((p) => [p.name, p.isDefault])).toEqual([
      [first, true],
      ['Kit', false],
    ]);
    engine.choosePersona(chat, kit);
    expect(engine.chatPersona(chat)).toMatchObject({ id: kit, name: 'Kit' });
    say('"Different now."');
    expect(mine()).toEqual([`${first}: "Hello."`, 'Kit: "Different now."']);
    expect(you()).toBe('Kit (they/them): A smuggler with a soft heart.');
    // The cast the analysis reads names Kit too.
    expect(engine.chatState(chat)!.names.you).toBe('Kit');

    // Rewound to before the switch, the chat plays the first persona again; the switch was part of the story.
    const switched = engine.transcript(chat).turns.find((t) => t.text === '"Different now."')!;
    engine.rewind(chat, switched.seq - 1);
    expect(engine.chatPersona(chat)!.name).toBe(first);
    engine.undoRewind(chat);
    expect(engine.chatPersona(chat)!.name).toBe('Kit');

    // A branch from after the switch plays Kit.
    const branch = engine.branchChat(chat, switched.seq);
    expect(engine.chatPersona(branch)!.name).toBe('Kit');
  });

  it('the default persona is who new chats play, and who Settings edits; a removed persona is offered no more but keeps its lines', () => {
    say('"One."');
    const kit = engine.savePersona({ name: 'Kit', pronouns: '', persona: 'A smuggler.' }, null);
    engine.setDefaultPersona(kit);
    expect(engine.getYou()!.name).toBe('Kit');
    expect(engine.chatPersona(chat)!.name).toBe('Kit'); // this chat chose none: it follows the default
    say('"Two."');
    engine.saveYou({ name: 'Kit Marlow', pronouns: '', persona: 'A smuggler.' });
    expect(engine.listPersonas().find((p) => p.id === kit)!.name).toBe('Kit Marlow');

    engine.choosePersona(chat, kit);
    say('"Three."');
    engine.setDefaultPersona('you');
    engine.removePersona(kit);
    expect(engine.listPersonas().map((p) => p.id)).toEqual(['you']);
    expect(mine().at(-1)).toBe('Kit Marlow: "Three."');
    expect(engine.chatPersona(chat)!.id).toBe('you');
    expect(() => engine.choosePersona(chat, kit)).toThrow(/no longer there/);
    expect(() => engine.removePersona(kit)).toThrow(/no longer there/);
    expect(() => engine.savePersona({ name: '' }, null)).toThrow(/name/);
  });
});
