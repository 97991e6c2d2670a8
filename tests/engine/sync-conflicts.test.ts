import { describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import type { SyncedEvent } from '../../src/engine/log/merge.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { canonicalProjections, visibilityProblems } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { openStory } from '../support/story.ts';

/**
 * Two devices playing one story offline, then meeting: what a player sees of the places where
 * they did the same thing differently.
 */

const count = await loadTokenCounter();
const everything = (engine: Engine): SyncedEvent[] => engine.eventsAfter(0, 1_000_000).map(({ seq: _, ...event }) => event);
const analysis = (affinityDelta: number, fact: string) =>
  JSON.stringify({ minutesPassed: 10, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta, trustDelta: 0, newFacts: [fact] } } });

/** A laptop with a story of one exchange, and a phone that has synced it: one wall clock for both. */
async function twoDevices() {
  const wall = { t: Date.UTC(2026, 0, 1) };
  const now = () => wall.t;
  const laptop = await openStory({ now });
  const phone = { ...(await openTestEngine({ now })), chat: laptop.chat, bot: laptop.bot };
  const later = (ms = 60_000) => (wall.t += ms);
  const analyzeAll = async (engine: Engine, llm: LlmClient) => {
    for (let job = engine.analysis.pending(laptop.chat)[0]; job; job = engine.analysis.pending(laptop.chat)[0]) {
      expect(await engine.analysis.run(llm, job, count)).toBe(true);
    }
  };
  const finish = (engine: Engine, turn: ReturnType<Engine['turns']['beginTurn']>, text: string) =>
    engine.turns.finishTurn(turn, { text, usage: null, truncated: false, reason: null, error: null });
  const meet = () => {
    laptop.engine.mergeEvents(everything(phone.engine));
    phone.engine.mergeEvents(everything(laptop.engine));
  };
  finish(laptop.engine, laptop.engine.turns.beginTurn(laptop.chat, '"Ugly sails."'), 'Mira shrugs.');
  await analyzeAll(laptop.engine, scriptedLlm(analysis(1, 'Ada spoke of the sails.')).client);
  phone.engine.mergeEvents(everything(laptop.engine));
  return { laptop, phone, later, analyzeAll, finish, meet };
}

const replies = (engine: Engine, chat: string) => engine.transcript(chat).turns.filter((t) => t.role === 'assistant').map((t) => t.text);
const mira = (engine: Engine, chat: string, bot: string) => engine.chatState(chat)!.edges.find((e) => e.source === bot && e.target === 'you')!;

describe('two devices answering the same turn offline', () => {
  it('show one reply with both answers as its versions, the later one shown, and only its analysis in force', async () => {
    const { laptop, phone, later, analyzeAll, finish, meet } = await twoDevices();
    const { chat, bot } = laptop;
    // A regenerate takes the first reply's analysis (+1) with it.
    const base = mira(laptop.engine, chat, bot).affinity - 1;

    // Offline: the laptop regenerates first; the phone regenerates the same reply a minute later;
    // the laptop's analysis of its version only finishes after that.
    later();
    finish(laptop.engine, laptop.engine.turns.regenerate(chat), 'Mira laughs at the sails.');
    later();
    finish(phone.engine, phone.engine.turns.regenerate(chat), 'Mira scowls at the sails.');
    await analyzeAll(phone.engine, scriptedLlm(analysis(-10, 'Ada mocked the sails.')).client);
    later();
    await analyzeAll(laptop.engine, scriptedLlm(analysis(8, 'Ada joked about the sails.')).client);

    meet();
    for (const device of [laptop, phone]) {
      // One reply to the turn, not two: the phone's (written later) shown, the laptop's a version of it.
      expect(replies(device.engine, chat).slice(1)).toEqual(['Mira scowls at the sails.']);
      expect(device.engine.transcript(chat).turns.at(-1)).toMatchObject({ versions: { number: 3, of: 3 } });
      // The feelings are the shown version's alone: the laptop's analysis of its own version,
      // which arrived after the phone's regenerate, is not in force.
      expect(mira(device.engine, chat, bot)).toMatchObject({ affinity: base - 10, knowledge: expect.not.arrayContaining(['Ada joked about the sails.']) });
      expect(visibilityProblems(device.db)).toEqual([]);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
    // The laptop says where the answer now shown came from; the phone wrote it.
    expect(laptop.engine.transcript(chat).turns.at(-1)!.versions).toEqual({ number: 3, of: 3, otherDevice: true });
    expect(phone.engine.transcript(chat).turns.at(-1)!.versions).toEqual({ number: 3, of: 3 });

    // Nothing is lost: the laptop's answer is version 2, with its own analysis, on either device.
    later();
    laptop.engine.chooseVersion(chat, 2);
    meet();
    for (const device of [laptop, phone]) {
      expect(replies(device.engine, chat).slice(1)).toEqual(['Mira laughs at the sails.']);
      expect(mira(device.engine, chat, bot)).toMatchObject({ affinity: base + 8, knowledge: expect.arrayContaining(['Ada joked about the sails.']) });
      expect(device.engine.analysis.pending(chat)).toEqual([]);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
  });

  it('leave out what a device wrote under a reply the other rewound away, until the rewind is undone', async () => {
    const { laptop, phone, later, analyzeAll, finish, meet } = await twoDevices();
    const { chat, bot } = laptop;
    const before = mira(laptop.engine, chat, bot).affinity;
    const reply = laptop.engine.transcript(chat).turns.at(-1)!;

    // The phone rewinds the exchange away; the laptop, not knowing, continues the reply and analyses it.
    later();
    const userTurn = phone.engine.transcript(chat).turns.at(-2)!;
    phone.engine.rewind(chat, userTurn.seq);
    later();
    finish(laptop.engine, laptop.engine.turns.continueReply(chat), 'Mira shrugs. Then she sighs.');
    await analyzeAll(laptop.engine, scriptedLlm(analysis(5, 'Ada waited.')).client);
    expect(laptop.engine.transcript(chat).turns.at(-1)!.turnId).toBe(reply.turnId);

    meet();
    for (const device of [laptop, phone]) {
      expect(replies(device.engine, chat)).toHaveLength(1); // only the opening
      expect(mira(device.engine, chat, bot).knowledge).not.toContain('Ada waited.');
      expect(visibilityProblems(device.db)).toEqual([]);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));

    // Undone on the phone: the continuation and its analysis come back with the reply.
    later();
    phone.engine.undoRewind(chat);
    meet();
    for (const device of [laptop, phone]) {
      expect(replies(device.engine, chat).at(-1)).toBe('Mira shrugs. Then she sighs.');
      expect(mira(device.engine, chat, bot)).toMatchObject({ knowledge: expect.arrayContaining(['Ada waited.']) });
      expect(mira(device.engine, chat, bot).affinity).toBeGreaterThan(before);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
  });

  it('leave a reply the other device is still writing to that device: a new leader here does not finish it as interrupted', async () => {
    const { laptop, phone, later, finish, meet } = await twoDevices();
    const { chat } = laptop;
    later();
    // The phone's start arrives (pushed at once, as the leader does) before its end.
    const writing = phone.engine.turns.beginTurn(chat, '"Where to?"');
    meet();
    expect(laptop.engine.transcript(chat).turns.at(-1)).toMatchObject({ status: 'streaming' });
    // The laptop's tab reloads: its new leader recovers what this device left streaming, and only that.
    expect(laptop.engine.turns.recoverInterrupted()).toEqual([]);
    // One reply at a time per story; the laptop is told where this one is being written (its Stop could not stop it).
    expect(() => laptop.engine.turns.beginTurn(chat, '"Wait!"')).toThrow(/being written on another device/);
    later();
    finish(phone.engine, writing, 'Mira points north.');
    meet();
    for (const device of [laptop, phone]) expect(device.engine.transcript(chat).turns.at(-1)).toMatchObject({ status: 'done', text: 'Mira points north.' });
    // Its own interrupted reply is still recovered, as before.
    later();
    laptop.engine.turns.beginTurn(chat, '"And then?"');
    expect(laptop.engine.turns.recoverInterrupted()).toHaveLength(1);
  });
});

describe('two devices that regenerated a reply apart and went on (issue 36, bug 1)', () => {
  it('hold two branches at that reply, each version carrying what followed it, never interleaved, and the same on both', async () => {
    const { laptop, phone, later, finish, meet } = await twoDevices();
    const { chat } = laptop;
    const story = (engine: Engine) => engine.transcript(chat).turns.slice(1).map((t) => t.text);
    // Paused on both: each regenerates the reply, then goes on with a line of its own.
    later();
    finish(laptop.engine, laptop.engine.turns.regenerate(chat), 'Mira laughs at the sails.');
    later();
    finish(laptop.engine, laptop.engine.turns.beginTurn(chat, 'laptop line.'), 'The laptop’s answer.');
    later();
    finish(phone.engine, phone.engine.turns.regenerate(chat), 'Mira scowls at the sails.');
    later();
    finish(phone.engine, phone.engine.turns.beginTurn(chat, 'phone line.'), 'The phone’s answer.');

    meet();
    for (const device of [laptop, phone]) {
      // The phone's branch, written later, is read; the laptop's lines are not woven into it.
      expect(story(device.engine)).toEqual(['"Ugly sails."', 'Mira scowls at the sails.', 'phone line.', 'The phone’s answer.']);
      const fork = device.engine.transcript(chat).turns[2]!;
      expect(fork.versions).toMatchObject({ number: 3, of: 3, fork: true });
      expect(device.engine.transcript(chat).turns.at(-1)!.versions).toBeNull();
      expect(visibilityProblems(device.db)).toEqual([]);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));

    // At the fork, the laptop's version brings its own continuation with it, on both devices.
    const fork = laptop.engine.transcript(chat).turns[2]!;
    expect(laptop.engine.turns.chooseVersion(chat, 2, undefined, fork.seq)).toEqual({ number: 2, of: 3 });
    meet();
    for (const device of [laptop, phone]) {
      expect(story(device.engine)).toEqual(['"Ugly sails."', 'Mira laughs at the sails.', 'laptop line.', 'The laptop’s answer.']);
      expect(device.engine.transcript(chat).turns[2]!.versions).toMatchObject({ number: 2, of: 3, fork: true });
      expect(visibilityProblems(device.db)).toEqual([]);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
    // The first version carries nothing after it: the story ends there. A reply that is no fork refuses.
    laptop.engine.turns.chooseVersion(chat, 1, undefined, laptop.engine.transcript(chat).turns[2]!.seq);
    expect(story(laptop.engine)).toEqual(['"Ugly sails."', 'Mira shrugs.']);
    expect(() => laptop.engine.turns.chooseVersion(chat, 1, undefined, laptop.engine.transcript(chat).turns[0]!.seq)).toThrow(/no reply|where the story goes two ways/);

    // And going on from a branch continues that branch.
    laptop.engine.turns.chooseVersion(chat, 3, undefined, laptop.engine.transcript(chat).turns[2]!.seq);
    later();
    finish(laptop.engine, laptop.engine.turns.beginTurn(chat, 'one more.'), 'Mira nods.');
    expect(story(laptop.engine)).toEqual(['"Ugly sails."', 'Mira scowls at the sails.', 'phone line.', 'The phone’s answer.', 'one more.', 'Mira nods.']);
  });
});
