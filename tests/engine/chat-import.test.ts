import { describe, expect, it } from 'vitest';
import { openStory } from '../support/story.ts';
import { dumpProjections } from '../support/dump.ts';
import { ANALYSIS_WINDOW } from '../../src/engine/analysis/jobs.ts';
import { withCalls } from '../support/engine.ts';
import { importTopic } from '../../src/engine/leader/stream.ts';

const header = { user_name: 'Ada', character_name: 'Mira', create_date: '2023-6-3@12h00m00s', chat_metadata: { note_prompt: '' } };
const line = (value: unknown) => JSON.stringify(value);
const message = (name: string, isUser: boolean, mes: string, extra: Record<string, unknown> = {}) => ({
  name,
  is_user: isUser,
  is_system: false,
  send_date: 'June 3, 2023 1:23pm',
  mes,
  extra: {},
  ...extra,
});

/** A SillyTavern chat: a greeting with two swipes (the second chosen), a system note, a reply in three versions (the middle one chosen). */
const stFile = [
  line(header),
  line(message('Mira', false, 'Hello again, traveller.', { swipes: ['Hi there.', 'Hello again, traveller.'], swipe_id: 1 })),
  line(message('Ada', true, '"Where is the harbour?" ((keep it short))', { send_date: 'June 3, 2023 1:25pm' })),
  line({ name: 'SillyTavern System', is_user: false, is_system: true, mes: 'Narrator note', send_date: 'June 3, 2023 1:25pm' }),
  line(message('Mira', false, 'North, past the bell tower.', { swipes: ['East.', 'North, past the bell tower.', 'I will not say.'], swipe_id: 1, send_date: 'June 3, 2023 1:26pm' })),
].join('\n');

const importInput = (text: string, botId: string) => ({ text, botId, title: 'At the harbour', progressId: 'progress-1' });

describe('importing a SillyTavern chat', () => {
  it('writes every message as a turn in order, each reply’s swipes as versions with the chosen one shown, and the file’s dates kept', async () => {
    const { engine, bot } = await openStory();
    const chat = engine.importChat(importInput(stFile, bot));
    const turns = engine.transcript(chat).turns;
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Hello again, traveller.'],
      ['user', '"Where is the harbour?" ((keep it short))'],
      ['assistant', 'North, past the bell tower.'],
    ]);
    expect(turns[1]!.segments!.map((s) => s.type)).toEqual(['dialogue', 'ooc']);
    expect(turns.at(-1)!.versions).toEqual({ number: 2, of: 3 });
    expect(engine.chatState(chat)!.title).toBe('At the harbour');
    expect(engine.listChats().find((c) => c.id === chat)).toBeDefined();

    // Exported back for SillyTavern: the same messages, swipes, chosen swipe and dates.
    const back = engine.exportChat(chat, 'sillytavern').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(back.slice(1).map((m) => [m.name, m.is_user, m.mes, m.send_date])).toEqual([
      ['Mira', false, 'Hello again, traveller.', 'June 3, 2023 1:23pm'],
      ['Ada', true, '"Where is the harbour?" ((keep it short))', 'June 3, 2023 1:25pm'],
      ['Mira', false, 'North, past the bell tower.', 'June 3, 2023 1:26pm'],
    ]);
    expect(back[1]).toMatchObject({ swipes: ['Hi there.', 'Hello again, traveller.'], swipe_id: 1 });
    expect(back[3]).toMatchObject({ swipes: ['East.', 'North, past the bell tower.', 'I will not say.'], swipe_id: 1 });
  });

  it('flips between an imported reply’s versions like any reply, and a rebuild projects the same chat', async () => {
    const { engine, db, bot } = await openStory();
    const chat = engine.importChat(importInput(stFile, bot));
    engine.chooseVersion(chat, 3);
    expect(engine.transcript(chat).turns.at(-1)!.text).toBe('I will not say.');
    const before = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(before);
  });

  it('refuses a malformed line by its number and writes nothing', async () => {
    const { engine, bot } = await openStory();
    const head = engine.headSeq();
    const broken = `${stFile}\n${line(message('Ada', true, 'fine'))}\n{"name": "Mira", "mes": "cut off`;
    expect(() => engine.importChat(importInput(broken, bot))).toThrow(/Line 7 is not JSON/);
    expect(() => engine.importChat(importInput(`${stFile}\n${line({ name: 'Mira', is_user: false })}`, bot))).toThrow(/Line 6 has no message text/);
    expect(() => engine.importChat(importInput(`${stFile}\n${line(message('Ada', true, 'x'.repeat(20_001)))}`, bot))).toThrow(/Line 6: a message of 20,001 characters/);
    expect(() => engine.importChat(importInput(line(header), bot))).toThrow(/no messages/);
    const swipes = Array.from({ length: 501 }, (_, i) => `v${i}`);
    expect(() => engine.importChat(importInput(`${stFile}\n${line(message('Mira', false, 'v0', { swipes, swipe_id: 0 }))}`, bot))).toThrow(/Line 6: a reply with 501 swipes/);
    expect(() => engine.importChat(importInput('{"not": "a chat"}\n', bot))).toThrow(/not a SillyTavern chat/);
    expect(engine.headSeq()).toBe(head);
  });

  it('a long chat: written in batches with progress, only its newest replies waiting for analysis, a re-sent import applied once', async () => {
    const { engine, bot } = await openStory();
    const lines = [line(header)];
    for (let i = 0; i < 1_000; i++) lines.push(line(message(i % 2 ? 'Ada' : 'Mira', i % 2 === 1, `Message ${i}: the tide turns.`)));
    const steps: { phase: string; done: number; total: number }[] = [];
    const commandId = engine.newId();
    const published = withCalls(engine, { publish: (topic, p) => topic === importTopic('progress-1') && steps.push(p as (typeof steps)[number]) });
    const chat = published.as(commandId).importChat(importInput(lines.join('\n'), bot));
    const writing = steps.filter((s) => s.phase === 'writing');
    expect(writing.map((s) => s.done)).toEqual([500, 1_000]);
    expect(writing.every((s) => s.total === 1_000)).toBe(true);
    const arranging = steps.filter((s) => s.phase === 'arranging');
    expect(arranging.at(-1)!.done).toBe(arranging.at(-1)!.total);
    expect(arranging.map((s) => s.done)).toEqual([...arranging.map((s) => s.done)].sort((a, b) => a - b));
    expect(engine.transcript(chat, { limit: 500 }).turns.at(-1)!.text).toBe('Message 999: the tide turns.');
    const pending = engine.analysis.pending(chat).filter((j) => j.type === 'turn');
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.length).toBeLessThanOrEqual(ANALYSIS_WINDOW);

    const head = engine.headSeq();
    expect(engine.as(commandId).importChat(importInput(lines.join('\n'), bot))).toBe(chat);
    expect(engine.headSeq()).toBe(head);
  });

  it('is steered like a played chat, before and after where its journal starts: a swipe, a rewind far back, each equal to a rebuild', async () => {
    const { engine, db, bot } = await openStory({ journalKeep: 50 });
    const lines = [line(header)];
    for (let i = 0; i < 200; i++) {
      const swiped = i % 10 === 0 ? { swipes: [`A${i}`, `B${i}`], swipe_id: 0 } : {};
      lines.push(line(message(i % 2 ? 'Ada' : 'Mira', i % 2 === 1, i % 10 === 0 ? `A${i}` : `Message ${i}.`, swiped)));
    }
    const chat = engine.importChat(importInput(lines.join('\n'), bot));
    expect(engine.transcript(chat, { limit: 500 }).turns.filter((t) => t.text.startsWith('B'))).toEqual([]);
    // Steered with the journal the import left (a rebuild would refill it), then held to a rebuild.
    engine.turns.regenerate(chat);
    const early = engine.transcript(chat, { limit: 500 }).turns[20]!;
    engine.rewind(chat, early.seq);
    expect(engine.transcript(chat, { limit: 500 }).turns.at(-1)!.seq).toBeLessThan(early.seq);
    const steered = dumpProjections(db);
    engine.rebuild();
    expect(steered).toEqual(dumpProjections(db));
  });

  it('drops a date outside the years a turn can carry instead of refusing the file', async () => {
    const { engine, bot } = await openStory();
    const chat = engine.importChat(importInput(`${line(header)}\n${line(message('Ada', true, 'Hello.', { send_date: 'January 1, 3000 1:00am' }))}\n${line(message('Mira', false, 'Hi.', { send_date: -5 }))}`, bot));
    expect(engine.transcript(chat).turns.map((t) => t.text)).toEqual(['Hello.', 'Hi.']);
  });

  it('refuses a bot that is in Recently deleted', async () => {
    const { engine, bot } = await openStory();
    engine.deleteBot(bot);
    expect(() => engine.importChat(importInput(stFile, bot))).toThrow(/Recently deleted/);
  });
});
