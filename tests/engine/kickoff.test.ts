import { beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import { defaultKickoff, kickoffPrompt, kickoffSchema } from '../../src/engine/kickoff/schema.ts';
import { demoReply } from '../../relay/demo-model.ts';
import { draft } from '../support/fixtures.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';

let engine: Engine;
let bot: string;
beforeEach(async () => {
  ({ engine } = await openTestEngine());
  bot = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { kickoff: 'Rain lashes the deck as Mira hands you a lantern.' })]);
});

describe('kickoff', () => {
  it('starts a chat with its place, activities, scene, first feelings and the kickoff prose, in one command', () => {
    const kickoff = { ...defaultKickoff(engine.getBot(bot)!, new Date(2026, 4, 1, 20)), edge: { summary: 'Old friends.', facts: ['Ada is a cartographer'] } };
    const before = engine.exportLog().events.length;
    const chatId = engine.startChat(bot, kickoff);
    const drawer = engine.chatState(chatId)!;
    expect(drawer).toMatchObject({ title: 'A story with Mira', fictionTime: '2026-05-01T20:00:00', place: { name: 'A quiet room', properties: { moving: false, public: false, audibleRange: 'room' } } });
    expect(drawer.activities.map((a) => a.entity)).toEqual(['you', bot]);
    expect(drawer.scene?.participants).toEqual(['you', bot]);
    expect(drawer.edges).toMatchObject([{ source: bot, target: 'you', affinity: 50, trust: 50, summary: 'Old friends.', knowledge: ['Ada is a cartographer'] }]);
    expect(engine.transcript(chatId).turns).toMatchObject([{ role: 'assistant', status: 'done', text: 'Rain lashes the deck as Mira hands you a lantern.' }]);
    const events = engine.exportLog().events.slice(before);
    expect(new Set(events.map((e) => e.ts)).size).toBe(1); // one command, one moment
    expect(events.map((e) => e.kind)).toEqual([
      'chat_created',
      'container_created',
      'activity_change',
      'activity_change',
      'scene_opened',
      'edge_update',
      'edge_summary_rewritten',
      'assistant_turn_started',
      'assistant_turn',
      'memory_written',
    ]);
    // The opening is the bot's first memory, and needs no analysis.
    expect(drawer.memories).toMatchObject([{ ownerId: bot, source: 'kickoff', summary: 'Rain lashes the deck as Mira hands you a lantern.', witness: { you: true, host: true } }]);
    expect(engine.analysis.pending(chatId)).toEqual([]);
  });

  it('refuses an invalid kickoff, naming the field, and writes nothing', () => {
    const head = engine.headSeq();
    const bad = { ...defaultKickoff(engine.getBot(bot)!, new Date()), title: '', fictionTime: 'yesterday' };
    expect(() => engine.startChat(bot, bad)).toThrow(/title: give the story a title.*fictionTime/);
    expect(engine.headSeq()).toBe(head);
  });

  it('the demo model answers the kickoff classifier with a valid proposal on the first call', async () => {
    const llm = scriptedLlm((messages) =>
      demoReply({ model: 'demo', messages: messages.map((m) => ({ role: m.role, content: m.content })), response_format: { type: 'json_object' } }),
    );
    const prompt = kickoffPrompt(engine.getBot(bot)!, engine.getYou());
    const result = await engine.classify(llm.client, kickoffSchema, prompt, { task: 'kickoff', fallback: defaultKickoff(engine.getBot(bot)!, new Date()) });
    expect(result).toMatchObject({ ok: true, calls: 1 });
    expect(() => engine.startChat(bot, result.value)).not.toThrow();
  });

  it("the demo model's proposal takes the place, the time of day and a title from the kickoff's own words", async () => {
    const propose = async (kickoff: string) => {
      const llm = scriptedLlm((messages) =>
        demoReply({ model: 'demo', messages: messages.map((m) => ({ role: m.role, content: m.content })), response_format: { type: 'json_object' } }),
      );
      const id = engine.newId();
      engine.append([draft.bot(id, { kickoff })]);
      const prompt = kickoffPrompt(engine.getBot(id)!, engine.getYou());
      const result = await engine.classify(llm.client, kickoffSchema, prompt, { task: 'kickoff', fallback: defaultKickoff(engine.getBot(id)!, new Date()) });
      expect(result).toMatchObject({ ok: true, calls: 1 });
      return result.value;
    };
    const airship = await propose('The airship Meridian drifts above the clouds at dawn.');
    expect(airship).toMatchObject({ title: 'The airship Meridian drifts above', place: { name: 'The airship Meridian', type: 'airship' } });
    expect(airship.fictionTime).toMatch(/T06:00:00$/);
    const forest = await propose('Deep in the old forest, at dusk, a fox watches you.');
    expect(forest).toMatchObject({ title: 'Deep in the old forest', place: { name: 'The old forest', type: 'forest' } });
    expect(forest.fictionTime).toMatch(/T19:00:00$/);
    const tavern = await propose('You meet at the Rusty Anchor at 21:30 in 1923.');
    expect(tavern.place.name).toBe('The Rusty Anchor');
    expect(tavern.fictionTime).toMatch(/^1923-.*T21:30:00$/);
  });
});
