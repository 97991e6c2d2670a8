import { beforeEach, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { STORY_INDEX_GATHERS } from '../../src/engine/queries/search-index.ts';

let engine: Engine;
let db: Db;
let chat: string;

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: Date.now }));
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
  chat = engine.startChat(bot, kickoffInput());
});

it('refuses a malformed call from another tab with a clear error, and changes nothing', async () => {
  const { leader, events } = testLeader(engine, scriptedLlm().client);
  const head = engine.headSeq();
  await expect(leader.call('dropEverything', [])).rejects.toThrow(/Unknown engine call "dropEverything"/);
  await expect(leader.call('sendTurn', ['command-1', 42, 'Hello'])).rejects.toThrow(/Bad arguments for "sendTurn": argument 0: .*string/);
  await expect(leader.call('sendTurn', [chat, 'Hello'])).rejects.toThrow(/Bad arguments for "sendTurn"/);
  await expect(leader.call('pinMemory', ['command-2', chat, 'm', 'yes'])).rejects.toThrow(/argument 2/);
  await expect(leader.call('listBots', { 0: 'x' })).rejects.toThrow(/must be a list/);
  await expect(leader.call('advanceClock', [{}, chat, 10])).rejects.toThrow(/needs a command id first/);
  await expect(leader.call('startFresh', [])).rejects.toThrow(/run by the tab's worker/);
  await expect(leader.call('toString', [])).rejects.toThrow(/Unknown engine call/);
  expect(engine.headSeq()).toBe(head);
  expect(events).toEqual([]);
});

it('tells the tabs what a command changed, and nothing for a query', async () => {
  const { leader, client, changes } = testLeader(engine, narratorOnly(scriptedLlm('The lantern gutters.').client));
  await client.listChats();
  await client.transcript(chat, { limit: 5 });
  expect(changes()).toEqual([]);
  const head = engine.headSeq();
  const time = await client.advanceClock(chat, 30);
  expect(time).toMatch(/T20:30/);
  const readers = ['analysisStatus', 'chatState', 'listChats', 'recentlyDeleted', 'transcript', 'searchChats', 'chatPersona', 'valueHistory', 'storyLanguage'];
  expect(changes()).toEqual([
    { fromSeq: head, toSeq: head + 1, chats: [chat], tables: ['chat_state', 'chats', 'value_changes'], queries: expect.arrayContaining(['chatState', 'listChats', 'transcript']), global: [], rebuilt: false },
  ]);
  // The live queries it names are exactly those that read chats or chat_state; nothing global changed.
  expect(changes()[0]!.queries.every((q) => readers.includes(q))).toBe(true);
  expect(changes()[0]!.queries).not.toContain('settings');

  await client.sendTurn(chat, '"Hold the light."');
  await leader.idle();
  const tables = changes().flatMap((c) => c.tables);
  // The reply, then its analysis: the clock, the feelings and the bot's memory of it.
  expect(tables).toEqual(expect.arrayContaining(['transcript', 'chat_state', 'edges', 'memories']));
  expect(tables).not.toContain('settings');
  // Notices chain: each starts where the one before ended.
  const all = changes();
  for (let i = 1; i < all.length; i++) expect(all[i]!.fromSeq).toBe(all[i - 1]!.toSeq);
  expect(all.at(-1)!.toSeq).toBe(engine.headSeq());
});

it('mirrors a streaming reply as numbered deltas, then its end: the first piece at once, the rest of a burst together', async () => {
  const { leader, client, events } = testLeader(engine, narratorOnly(scriptedLlm('Rain on the deck.').client));
  const { turnId } = await client.sendTurn(chat, 'Go on');
  await leader.idle();
  const published = events.flatMap((e) => (e.type === 'publish' ? [e] : []));
  expect(published.map((p) => p.seq)).toEqual(published.map((_, i) => i + 1));
  expect(published.map((p) => p.data)).toEqual([
    { turnId, type: 'delta', text: 'Rain ' },
    { turnId, type: 'delta', text: 'on the deck.' },
    { turnId, type: 'end' },
  ]);
  expect(engine.transcript(chat).turns.at(-1)).toMatchObject({ turnId, text: 'Rain on the deck.', status: 'done' });
});

it('sends pieces that arrive apart one by one, and a tab reading mid-burst gets the text its seq holds, never a piece twice', async () => {
  let release!: () => void;
  const paused = new Promise<void>((resolve) => (release = resolve));
  const nextTask = () => new Promise((resolve) => setTimeout(resolve, 5));
  const llm: LlmClient = {
    complete: () => Promise.reject(new Error('not in this test')),
    async *stream() {
      yield { type: 'delta', text: 'Salt ' };
      yield { type: 'delta', text: 'and ' };
      await paused;
      yield { type: 'delta', text: 'tar.' };
      await nextTask();
      yield { type: 'delta', text: ' Done.' };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  const { leader, client, events } = testLeader(engine, narratorOnly(llm));
  const { turnId } = await client.sendTurn(chat, 'Go on');
  // Once the first piece is out (the prompt is assembled first: a few ms, more on a loaded machine),
  // 'and ', which came in the same task as 'Salt ', goes out on its own at the next task.
  while (!(await client.streamState(chat))?.text) await nextTask();
  await nextTask();
  const state = await client.streamState(chat);
  expect(state).toEqual({ turnId, text: 'Salt and ', thinking: '', thoughtMs: null, seq: 2 });
  release();
  await leader.idle();
  const deltas = events.flatMap((e) => (e.type === 'publish' && (e.data as { type: string }).type === 'delta' ? [e] : []));
  expect(deltas.map((d) => (d.data as { text: string }).text)).toEqual(['Salt ', 'and ', 'tar.', ' Done.']);
  // A tab that read the state above and follows the deltas after its seq holds the whole reply once.
  const followed = state!.text + deltas.filter((d) => d.seq > state!.seq).map((d) => (d.data as { text: string }).text).join('');
  expect(followed).toBe('Salt and tar. Done.');
  expect(engine.transcript(chat).turns.at(-1)).toMatchObject({ turnId, text: 'Salt and tar. Done.', status: 'done' });
});

it('gets a first Send ready when the player starts writing: the SDK warmed, the prompt assembled, nothing written', async () => {
  let warmed = 0;
  const scripted = narratorOnly(scriptedLlm('Fog rolls in.').client);
  const llm: LlmClient = { ...scripted, warm: async () => void warmed++ };
  const { client, events } = testLeader(engine, llm);
  const head = engine.headSeq();
  await expect(client.prepareToSend(chat)).resolves.toBeNull();
  expect(warmed).toBe(1);
  expect(engine.headSeq()).toBe(head);
  expect(events).toEqual([]);
  await expect(client.prepareToSend(engine.newId())).rejects.toThrow(/No chat/);
  expect(engine.headSeq()).toBe(head);
});

it('indexes the story for search in the background once turns have gathered, never inside a Send; a search finds what still waits', async () => {
  const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('The gulls wheel over the breakwater.').client));
  const waiting = () => db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
  const indexed = (word: string) => db.all('SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ?', [word]).length;
  await client.sendTurn(chat, '"Watch the breakwater."');
  // The Send's commit noted the new turns; it did not tokenise them.
  expect(waiting()).toBeGreaterThan(0);
  expect(indexed('breakwater')).toBe(0);
  await leader.idle();
  // A pass for two turns would write the index a segment per Send: they wait for more.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(indexed('breakwater')).toBe(0);
  // A search indexes what waits first: the turn is found.
  expect(engine.searchChats('breakwater').length).toBeGreaterThan(0);
  expect(waiting()).toBe(0);
  expect(indexed('breakwater')).toBe(2);
  // Once enough have gathered, the background pass takes them all in one go.
  for (let i = 0; i < STORY_INDEX_GATHERS / 2; i++) {
    await client.sendTurn(chat, `"Watch the harbour, ${i}."`);
    await leader.idle();
  }
  await expect.poll(waiting, { timeout: 15_000 }).toBe(0);
  expect(indexed('harbour')).toBe(STORY_INDEX_GATHERS / 2);
  db.run("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
  leader.stop();
});

it('takes in a backlog of the search index (a migration indexing every story again) a batch at a time, saying how much still waits', async () => {
  // A thousand turns written at once (as an import or the migration leaves them), none indexed yet.
  for (let i = 0; i < 600; i++) {
    const turn = engine.turns.beginTurn(chat, `Line ${i} about the breakwater.`);
    engine.turns.finishTurn(turn, { text: `Reply ${i}.`, usage: null, truncated: false, reason: null, error: null });
  }
  const waiting = () => db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
  expect(waiting()).toBeGreaterThan(1_000);
  const { leader, events } = testLeader(engine, narratorOnly(scriptedLlm('The tide turns.').client));
  leader.start();
  const progress = () => events.flatMap((e) => (e.type === 'publish' && e.topic === 'search-index' ? [(e.data as { waiting: number }).waiting] : []));
  await expect.poll(() => progress().at(-1), { timeout: 15_000 }).toBe(0);
  expect(waiting()).toBe(0);
  // It counted down, pass by pass, and said when it was done.
  const told = progress();
  expect(told.length).toBeGreaterThanOrEqual(3);
  expect(told.slice(0, -1).every((n, i) => n > 0 && (i === 0 || n < told[i - 1]!))).toBe(true);
  leader.stop();
});
