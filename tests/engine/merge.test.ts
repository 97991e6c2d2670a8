import { describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import type { SyncedEvent } from '../../src/engine/log/merge.ts';
import { canonicalProjections } from '../support/dump.ts';
import { analysedExchange, draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

const everything = (engine: Engine): SyncedEvent[] => engine.eventsAfter(0, 1_000_000).map(({ seq: _, ...event }) => event);
const eventCount = (engine: Engine) => engine.eventsAfter(0, 1_000_000).length;

/** A device with a story of a few exchanges: a bot, a chat, turns, a feeling and a memory. */
async function deviceWithStory() {
  const device = await openTestEngine();
  const { engine } = device;
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  for (let i = 0; i < 3; i++) exchange(engine, chat, bot, `line ${i}`);
  return { ...device, bot, chat };
}

const exchange = (engine: Engine, chat: string, bot: string, text: string) => engine.append(analysedExchange(() => engine.newId(), chat, bot, text));

describe('merging events from another device', () => {
  it('is a union: in any order, twice over, the other device ends with the same rows', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    const events = everything(a.engine);
    // Two overlapping batches, each backwards: duplicates and out-of-order arrival. (A batch may
    // not run ahead of the causes its events name: those come in the same batch or an earlier one.)
    expect(b.engine.mergeEvents(events.slice(0, 12).reverse()).added).toBe(12);
    const second = b.engine.mergeEvents(events.slice(6).reverse());
    expect(second.added).toBe(events.length - 12);
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
    const before = canonicalProjections(b.db);
    expect(b.engine.mergeEvents(events)).toEqual({ added: 0, chats: [], everything: false, waiting: 0 });
    expect(canonicalProjections(b.db)).toEqual(before);
  });

  it('keeps both devices\' offline turns, in id order, and what either writes next sorts after both', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    b.engine.mergeEvents(everything(a.engine));
    // Offline on both: each plays on in the same chat.
    exchange(a.engine, a.chat, a.bot, 'from the laptop');
    exchange(b.engine, a.chat, a.bot, 'from the phone');
    const fromA = everything(a.engine);
    const fromB = everything(b.engine);
    const merged = a.engine.mergeEvents(fromB);
    expect(merged.chats).toEqual([a.chat]);
    b.engine.mergeEvents(fromA);
    expect(canonicalProjections(a.db)).toEqual(canonicalProjections(b.db));
    const lines = a.db.all<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'user' ORDER BY seq", [a.chat]).map((r) => r.text);
    expect(lines).toEqual(expect.arrayContaining(['line 0', 'from the laptop', 'from the phone']));
    expect(eventCount(a.engine)).toBe(eventCount(b.engine));
    const newest = [...fromA, ...fromB].map((e) => e.id).sort().at(-1)!;
    expect(a.engine.newId() > newest).toBe(true);
    expect(b.engine.newId() > newest).toBe(true);
  });

  it('refuses an event that comes back under a known id with other content, writing nothing', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    const events = everything(a.engine);
    b.engine.mergeEvents(events.slice(0, 5));
    const forged = { ...events[2]!, payload: JSON.stringify({ ...JSON.parse(events[2]!.payload), title: 'Rewritten elsewhere' }) };
    const count = eventCount(b.engine);
    const rows = canonicalProjections(b.db);
    expect(() => b.engine.mergeEvents([...events.slice(5), forged])).toThrow(/other content than the copy already here/);
    expect(eventCount(b.engine)).toBe(count);
    expect(canonicalProjections(b.db)).toEqual(rows);
  });

  it('holds back an event whose cause has not arrived, and merges it with the batch that brings the cause', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    const events = everything(a.engine);
    const reply = events.findIndex((e) => e.kind === 'assistant_turn');
    // A clustered CouchDB may send a reply (and what it caused) before the start it finishes.
    // The reply, its feeling and its memory wait; the later exchanges name nothing missing and join.
    const early = b.engine.mergeEvents([...events.slice(0, reply - 1), ...events.slice(reply)]);
    expect(early).toMatchObject({ added: events.length - 4, waiting: 3 });
    expect(eventCount(b.engine)).toBe(events.length - 4);
    // Held whole across a restart of the leader: it is in the database, not in memory.
    expect(b.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_waiting')!.n).toBe(3);
    expect(b.engine.mergeEvents([events[reply - 1]!])).toMatchObject({ added: 4, waiting: 0 });
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
  });

  it('refuses a batch whose events do not fit their kind, writing nothing', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    const events = everything(a.engine);
    const broken = { ...events[0]!, payload: JSON.stringify({ name: 42 }) };
    expect(() => b.engine.mergeEvents([broken])).toThrow(/is invalid/);
    expect(() => b.engine.mergeEvents([{ ...events[0]!, id: 'not-an-id' }])).toThrow(/not a UUID/);
    expect(() => b.engine.mergeEvents([{ ...events[0]!, payload: '{oops' }])).toThrow(/not JSON/);
    expect(eventCount(b.engine)).toBe(0);
  });

  it('leaves a reply\'s analysis to the device that wrote it, so its feelings are not counted twice', async () => {
    const a = await openTestEngine();
    const bot = a.engine.newId();
    const chat = a.engine.newId();
    const turn = a.engine.newId();
    a.engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.userTurn(chat, a.engine.newId(), 'Hello.')]);
    a.engine.append([draft.assistantStarted(chat, turn, bot)]);
    a.engine.append([draft.assistantTurn(chat, turn, bot, 'Mira nods.')]);
    expect(a.engine.analysis.pending(chat).map((j) => j.type)).toEqual(['turn']);
    const b = await openTestEngine();
    b.engine.mergeEvents(everything(a.engine));
    expect(b.engine.analysis.pending(chat)).toEqual([]);
  });

  it('projects a global event that arrives after everything as an append would, without rebuilding the rest', async () => {
    const a = await deviceWithStory();
    const b = await openTestEngine();
    b.engine.mergeEvents(everything(a.engine));
    // A full rebuild would index every turn at once; the merge of one new event leaves the queue alone.
    const waiting = () => b.db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
    const before = waiting();
    expect(before).toBeGreaterThan(0);
    a.engine.append([draft.you({ name: 'Ada, renamed' })]);
    const merged = b.engine.mergeEvents(everything(a.engine));
    expect(merged).toMatchObject({ added: 1, everything: false });
    expect(b.engine.getYou()?.name).toBe('Ada, renamed');
    expect(waiting()).toBe(before);
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
  });
});
