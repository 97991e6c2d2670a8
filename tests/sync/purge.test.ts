import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventToDoc } from '../../src/engine/sync/event-docs.ts';
import { startCouch, freshDatabaseName, type CouchServer } from '../support/couch-server.ts';
import { canonicalProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { exchange, replicatorFor as replicatorForServer, type Device } from '../support/sync-devices.ts';

/**
 * "Delete forever" on one device takes the story off every device and off the sync server: the
 * server keeps no copy of its text, a new device never receives it, and a device that wrote in it
 * before hearing of the purge loses those turns too instead of bringing the story back.
 */

let server: CouchServer;
beforeAll(async () => {
  server = await startCouch();
});
afterAll(async () => {
  await server.close();
});


/** Devices share one wall clock, as they would; each step moves it on. */
const wall = { t: Date.UTC(2026, 0, 1) };
const device = (): Promise<Device> => openTestEngine({ now: () => (wall.t += 1_000) });

const replicatorFor = (d: Device, database: string) => replicatorForServer(server, d, database, 7);

/** Every document the server hands out, as text. */
const serverText = async (database: string): Promise<string> => (await server.fetch(`${server.url}/${database}/_changes?include_docs=true`)).text();

const chatIds = (d: Device) => d.db.all<{ id: string }>('SELECT id FROM chats ORDER BY id').map((r) => r.id);
const eventsOf = (d: Device, chat: string) => d.db.get<{ n: number }>('SELECT count(*) AS n FROM events WHERE chat_id = ?', [chat])!.n;

/** A laptop with these stories (one bot), synced to a fresh phone through a new server database. */
async function laptopAndPhone(titles: string[]) {
  const name = freshDatabaseName();
  const laptop = await device();
  const bot = laptop.engine.newId();
  const chats = titles.map(() => laptop.engine.newId());
  laptop.engine.append([draft.you(), draft.bot(bot), ...chats.map((chat, i) => draft.chat(chat, bot, { title: titles[i]! }))]);
  const laptopSync = replicatorFor(laptop, name);
  await laptopSync.prepare();
  await laptopSync.syncOnce();
  const phone = await device();
  const phoneSync = replicatorFor(phone, name);
  await phoneSync.prepare();
  await phoneSync.syncOnce();
  const deleteForever = (chat: string) => {
    laptop.engine.deleteChat(chat);
    laptop.engine.purgeNow({ chatId: chat });
  };
  return { laptop, phone, laptopSync, phoneSync, bot, chats, deleteForever };
}

describe('a purge carried by sync', () => {
  it('takes a chat deleted forever off the other device and off the server; a new device never sees it', async () => {
    const name = freshDatabaseName();
    const laptop = await device();
    const bot = laptop.engine.newId();
    const secret = laptop.engine.newId();
    const kept = laptop.engine.newId();
    laptop.engine.append([draft.you(), draft.bot(bot), draft.chat(secret, bot, { title: 'The secret story' }), draft.chat(kept, bot, { title: 'The kept story' })]);
    for (let i = 0; i < 3; i++) exchange(laptop, secret, bot, `whispered secret ${i}`);
    exchange(laptop, kept, bot, 'an ordinary line');
    const laptopSync = replicatorFor(laptop, name);
    await laptopSync.prepare();
    await laptopSync.syncOnce();
    const secretEvents = laptop.engine.eventsAfter(0, 10_000).filter((e) => e.chat_id === secret);
    const phone = await device();
    const phoneSync = replicatorFor(phone, name);
    await phoneSync.prepare();
    await phoneSync.syncOnce();
    expect(chatIds(phone)).toEqual([secret, kept].sort());
    expect(await serverText(name)).toContain('whispered secret 1');

    // The phone, offline, plays on in the story the laptop is about to delete forever.
    exchange(phone, secret, bot, 'whispered secret from the phone');
    laptop.engine.deleteChat(secret);
    laptop.engine.purgeNow({ chatId: secret });
    const report = await laptopSync.syncOnce();
    expect(report.removed).toBe(secretEvents.length);
    // The server holds bare deletions of those events: no text, and no old revision to ask for.
    const server1 = await serverText(name);
    expect(server1).not.toContain('whispered secret');
    expect(server1).toContain('an ordinary line');
    const old = eventToDoc(secretEvents[1]!);
    await expect.poll(async () => (await server.fetch(`${server.url}/${name}/${old._id}?rev=${encodeURIComponent(old._rev)}`)).status, { timeout: 5_000 }).toBe(404);

    // The phone comes online and pushes first, as the leader does: its turn in that story reaches
    // the server before the phone hears of the purge. Then it pulls the purge: its copies go, and
    // so does that turn, here and on the server.
    await phoneSync.push();
    expect(await serverText(name)).toContain('whispered secret from the phone');
    const phoneReport = await phoneSync.syncOnce();
    expect(phoneReport.removed).toBe(5); // the phone's exchange: line, reply's start and end, feeling, memory
    expect(chatIds(phone)).toEqual([kept]);
    expect(eventsOf(phone, secret)).toBe(0);
    await laptopSync.syncOnce();
    expect(eventsOf(laptop, secret)).toBe(0);
    expect(await serverText(name)).not.toContain('whispered secret');
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));

    // A new device receives the kept story and the purge, nothing of the purged one.
    const tablet = await device();
    const tabletSync = replicatorFor(tablet, name);
    await tabletSync.prepare();
    await tabletSync.syncOnce();
    expect(chatIds(tablet)).toEqual([kept]);
    expect(tablet.db.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE kind = 'purged'")!.n).toBe(1);
    expect(canonicalProjections(tablet.db)).toEqual(canonicalProjections(laptop.db));
    for (const d of [laptop, phone, tablet]) expect(d.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_removals')!.n).toBe(0);
  });

  it('keeps aside, on the device that wrote them, turns the purging device never had; kept as a new chat, or let go (issue 36, bug 4)', async () => {
    const { laptop, phone, laptopSync, phoneSync, bot, chats, deleteForever } = await laptopAndPhone(['The lighthouse', 'The harbour']);
    const [lighthouse, harbour] = chats as [string, string];
    exchange(laptop, lighthouse, bot, 'the lamp is lit');
    exchange(laptop, harbour, bot, 'the boats are in');
    await laptopSync.syncOnce();
    await phoneSync.syncOnce();

    // The phone, paused, plays on in the lighthouse; the laptop deletes both stories forever.
    exchange(phone, lighthouse, bot, 'a line from the paused phone');
    for (const chat of [lighthouse, harbour]) deleteForever(chat);
    await laptopSync.syncOnce();
    // Resumed, the phone pushes first, as the leader does, and then hears of the purges.
    await phoneSync.push();
    await phoneSync.syncOnce();
    expect(chatIds(phone)).toEqual([]);
    // The lighthouse held the phone's line and its reply, which the laptop never had: a copy waits.
    // The harbour held nothing of the phone's: it simply goes.
    expect(phone.engine.purgeRescues()).toEqual([{ chatId: lighthouse, title: 'The lighthouse', botId: bot, botName: 'Mira', unsyncedTurns: 2, at: expect.any(Number) }]);
    expect(phone.engine.rescuedChatFile(lighthouse)).toContain('a line from the paused phone');
    expect(phone.engine.rescuedChatFile(lighthouse)).toContain('the lamp is lit');
    await laptopSync.syncOnce();
    expect(laptop.engine.purgeRescues()).toEqual([]);

    // Kept: a new chat with the same bot, the story as the phone had it; every device gets it.
    const kept = phone.engine.keepRescuedChat(lighthouse);
    expect(phone.engine.purgeRescues()).toEqual([]);
    expect(phone.db.get<{ title: string }>('SELECT title FROM chats WHERE id = ?', [kept])!.title).toBe('The lighthouse (kept from this device)');
    expect(phone.db.all<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'user' ORDER BY seq", [kept]).map((r) => r.text)).toEqual([
      'the lamp is lit',
      'a line from the paused phone',
    ]);
    await phoneSync.syncOnce();
    await laptopSync.syncOnce();
    expect(chatIds(laptop)).toEqual([kept]);
    expect(() => phone.engine.keepRescuedChat(lighthouse)).toThrow('That copy is no longer kept.');
  });

  it('lets a kept-aside copy go without touching anything else', async () => {
    const { phone, laptopSync, phoneSync, bot, chats, deleteForever } = await laptopAndPhone(['The lighthouse']);
    const chat = chats[0]!;
    exchange(phone, chat, bot, 'only on the phone');
    deleteForever(chat);
    await laptopSync.syncOnce();
    await phoneSync.syncOnce();
    const before = phone.engine.eventsAfter(0, 10_000).length;
    expect(phone.engine.purgeRescues().map((r) => r.unsyncedTurns)).toEqual([2]);
    expect(phone.engine.letRescueGo(chat)).toBe(true);
    expect(phone.engine.purgeRescues()).toEqual([]);
    expect(phone.engine.eventsAfter(0, 10_000).length).toBe(before);
  });

  it('takes a purged bot with the chats it hosted, even one another device started meanwhile', async () => {
    const name = freshDatabaseName();
    const laptop = await device();
    const mira = laptop.engine.newId();
    const tam = laptop.engine.newId();
    const first = laptop.engine.newId();
    laptop.engine.append([draft.you(), draft.bot(mira, { name: 'Mira' }), draft.bot(tam, { name: 'Tam' }), draft.chat(first, mira), draft.chat(laptop.engine.newId(), tam)]);
    exchange(laptop, first, mira, 'hello Mira');
    const laptopSync = replicatorFor(laptop, name);
    await laptopSync.prepare();
    await laptopSync.syncOnce();
    const phone = await device();
    const phoneSync = replicatorFor(phone, name);
    await phoneSync.prepare();
    await phoneSync.syncOnce();

    // Offline, the phone starts a new story with Mira and edits her; the laptop deletes her forever.
    const started = phone.engine.newId();
    phone.engine.append([draft.chat(started, mira, { title: 'Started on the phone' }), draft.bot(mira, { name: 'Mira, edited on the phone' })]);
    exchange(phone, started, mira, 'a line on the phone');
    laptop.engine.deleteBot(mira);
    laptop.engine.purgeNow({ botId: mira });
    await laptopSync.syncOnce();
    await phoneSync.syncOnce();
    await laptopSync.syncOnce();

    for (const d of [laptop, phone]) {
      expect(d.db.all<{ name: string }>('SELECT name FROM bots').map((b) => b.name)).toEqual(['Tam']);
      expect(d.db.all<{ bot_id: string }>('SELECT bot_id FROM chats').map((c) => c.bot_id)).toEqual([tam]);
      expect(d.db.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE json_extract(payload, '$.botId') = ? AND kind <> 'purged'", [mira])!.n).toBe(0);
    }
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
    const text = await serverText(name);
    expect(text).not.toContain('a line on the phone');
    expect(text).not.toContain('hello Mira');
  });
});
