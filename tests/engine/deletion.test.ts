import { describe, expect, it } from 'vitest';
import { KEPT_DELETED_MS } from '../../src/engine/deletion/commands.ts';
import { rebuild } from '../../src/engine/log/rebuild.ts';
import { checkMemoryIndex, dumpProjections } from '../support/dump.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { openStory } from '../support/story.ts';
import { testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';

const DAY = 24 * 60 * 60 * 1000;

/** Ada, Mira with a chat of a few turns, and Theo with a chat of his own. */
async function twoStories() {
  const clock = testClock();
  const story = await openStory({ now: clock.now });
  const { engine } = story;
  engine.turns.finishTurn(engine.turns.beginTurn(story.chat, '"Morning."'), { text: 'Mira nods.', usage: null, truncated: false, reason: null, error: null });
  const theo = engine.newId();
  engine.append([draft.bot(theo, { name: 'Theo' })]);
  const theoChat = engine.startChat(theo, kickoffInput());
  return { ...story, clock, theo, theoChat };
}

const count = (s: Awaited<ReturnType<typeof twoStories>>, where: string, params: (string | number)[] = []) =>
  s.db.get<{ n: number }>(`SELECT count(*) AS n FROM events WHERE ${where}`, params)!.n;

describe('delete and restore', () => {
  it('a deleted chat leaves the list for "Recently deleted" with every event kept, and comes back exactly as it was', async () => {
    const s = await twoStories();
    const { engine, chat } = s;
    const before = { transcript: engine.transcript(chat), state: { ...engine.chatState(chat)!, deleted: null } };
    const events = count(s, 'chat_id = ?', [chat]);

    engine.deleteChat(chat);
    expect(engine.listChats().map((c) => c.id)).toEqual([s.theoChat]);
    expect(engine.chatState(chat)!.deleted).toBe('chat');
    const deleted = engine.recentlyDeleted().chats;
    expect(deleted).toEqual([expect.objectContaining({ id: chat, title: before.state.title, botName: 'Mira' })]);
    expect(deleted[0]!.purgeTs - deleted[0]!.deletedTs).toBe(KEPT_DELETED_MS);
    expect(count(s, 'chat_id = ?', [chat])).toBe(events + 1);

    engine.restoreChat(chat);
    expect(engine.listChats().map((c) => c.id).sort()).toEqual([chat, s.theoChat].sort());
    expect(engine.transcript(chat)).toEqual(before.transcript);
    expect(engine.chatState(chat)).toEqual(before.state);
    expect(engine.recentlyDeleted()).toEqual({ chats: [], bots: [] });
  });

  it('a deleted bot takes the chats it hosts with it, cannot start a chat, and restoring it brings them back', async () => {
    const s = await twoStories();
    const { engine } = s;
    engine.deleteBot(s.bot);
    expect(engine.listBots().map((b) => b.name)).toEqual(['Theo']);
    expect(engine.listChats().map((c) => c.id)).toEqual([s.theoChat]);
    expect(engine.chatState(s.chat)!.deleted).toBe('bot');
    expect(engine.recentlyDeleted().bots).toEqual([expect.objectContaining({ id: s.bot, name: 'Mira', chats: 1 })]);
    expect(() => engine.startChat(s.bot, kickoffInput())).toThrow(/Mira is in Recently deleted/);

    engine.restoreBot(s.bot);
    expect(engine.listBots().map((b) => b.name)).toEqual(['Mira', 'Theo']);
    expect(engine.listChats()).toHaveLength(2);
  });

  it('deleting twice or restoring what is not deleted changes nothing', async () => {
    const s = await twoStories();
    const total = () => count(s, '1');
    const start = total();
    s.engine.restoreChat(s.chat);
    s.engine.deleteChat(s.chat);
    s.engine.deleteChat(s.chat);
    expect(total()).toBe(start + 1);
  });
});

describe('the purge', () => {
  it('after 30 days removes the deleted chat and every event of it, as one logged purge; the rest is untouched and rebuilds the same', async () => {
    const s = await twoStories();
    const { engine, db, clock, chat } = s;
    engine.deleteChat(chat);
    const theoBefore = { transcript: engine.transcript(s.theoChat), state: engine.chatState(s.theoChat) };

    clock.advance(29 * DAY);
    expect(engine.purgeExpired()).toBe(false);
    expect(count(s, 'chat_id = ?', [chat])).toBeGreaterThan(0);

    clock.advance(2 * DAY);
    expect(engine.purgeExpired()).toBe(true);
    expect(count(s, 'chat_id = ?', [chat])).toBe(0);
    const purge = db.get<{ payload: string }>("SELECT payload FROM events WHERE kind = 'purged'")!;
    // It says what this device had of each device's writing (its newest event), for one that wrote later.
    expect(JSON.parse(purge.payload)).toEqual({ chats: [chat], bots: [], events: [], seen: { [engine.identify().dbId]: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    for (const table of ['chats', 'transcript', 'memories', 'edges', 'activity', 'scenes', 'containers', 'chat_state']) {
      const column = table === 'chats' ? 'id' : 'chat_id';
      expect(db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, [chat])!.n, table).toBe(0);
    }
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?)', [chat])!.n).toBe(0);
    checkMemoryIndex(db);
    expect(engine.recentlyDeleted()).toEqual({ chats: [], bots: [] });
    expect(() => engine.restoreChat(chat)).toThrow(/deleted for good/);
    expect({ transcript: engine.transcript(s.theoChat), state: engine.chatState(s.theoChat) }).toEqual(theoBefore);

    const projected = dumpProjections(db);
    rebuild(db);
    expect(dumpProjections(db)).toEqual(projected);
  });

  it('purging a bot removes its versions, resets and the chats it hosts; a backup of what is left restores whole', async () => {
    const s = await twoStories();
    const { engine } = s;
    engine.resetBot(s.bot, 'Mira');
    engine.undoBotReset(s.bot);
    engine.deleteBot(s.bot);
    engine.purgeNow({ botId: s.bot });

    expect(count(s, "json_extract(payload, '$.botId') = ?", [s.bot])).toBe(0);
    expect(count(s, "kind = 'bot_reset_undone'")).toBe(0);
    expect(count(s, 'chat_id = ?', [s.chat])).toBe(0);
    expect(engine.getBot(s.bot)).toBeUndefined();
    expect(engine.listChats().map((c) => c.id)).toEqual([s.theoChat]);

    const backup = JSON.parse(JSON.stringify(engine.exportLog()));
    const target = await openTestEngine();
    target.engine.importLog(backup);
    // Seqs are each database's own arrival order; everything else must be the same.
    const screens = (e: typeof engine) =>
      JSON.parse(JSON.stringify({ bots: e.listBots(), chats: e.listChats(), transcript: e.transcript(s.theoChat), state: e.chatState(s.theoChat) }, (key, value) => (/seq$/i.test(key) ? undefined : value)));
    expect(screens(target.engine)).toEqual(screens(engine));
  });

  it('runs when a tab starts leading, and tells every tab', async () => {
    const s = await twoStories();
    s.engine.deleteChat(s.chat);
    s.clock.advance(31 * DAY);
    const { leader, changes } = testLeader(s.engine, scriptedLlm().client, { now: s.clock.now });
    leader.start();
    expect(count(s, 'chat_id = ?', [s.chat])).toBe(0);
    expect(changes().at(-1)).toMatchObject({ rebuilt: true, chats: [] });
  });

  it('"Delete forever" refuses what is not deleted, and writes nothing', async () => {
    const s = await twoStories();
    const start = count(s, '1');
    expect(() => s.engine.purgeNow({ chatId: s.chat })).toThrow(/Only a deleted chat/);
    expect(() => s.engine.purgeNow({ botId: s.bot })).toThrow(/Only a deleted bot/);
    expect(count(s, '1')).toBe(start);
  });

  it('the log still refuses any other deletion: a chat not named by a purge, and the purge itself', async () => {
    const s = await twoStories();
    s.engine.deleteChat(s.chat);
    s.engine.purgeNow({ chatId: s.chat });
    expect(() => s.db.run('DELETE FROM events WHERE chat_id = ?', [s.theoChat])).toThrow(/only a logged purge removes data/);
    expect(() => s.db.run("DELETE FROM events WHERE kind = 'purged'")).toThrow(/only a logged purge removes data/);
    expect(() => s.db.run("DELETE FROM events WHERE kind = 'you_authored'")).toThrow(/only a logged purge removes data/);
  });

  it('a bot deleted forever leaves no feelings or memories in the stories it visited, and a rebuild agrees', async () => {
    const s = await twoStories();
    const { engine, db, chat, theo } = s;
    // Theo visits Mira's story: Ada feels something about him there. Then he is reset, which
    // cleared that feeling, and deleted forever, which takes his reset out of the log with him.
    engine.append([draft.edge(chat, theo, 'you', { affinityDelta: 3, facts: ['met Ada'] })]);
    engine.append([{ kind: 'bot_reset', payload: { botId: theo } }]);
    engine.append([draft.edge(chat, 'you', theo, { affinityDelta: 1, facts: ['thinks of Theo'] })]);
    engine.deleteBot(theo);
    engine.purgeNow({ botId: theo });
    const involving = () => db.all('SELECT source, target FROM edges WHERE chat_id = ? AND (source = ?2 OR target = ?2)', [chat, theo]);
    expect(involving()).toEqual([]);
    const incremental = dumpProjections(db);
    rebuild(db);
    expect(dumpProjections(db)).toEqual(incremental);
    engine.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(incremental);
  });
});
