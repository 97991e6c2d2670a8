import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { randomBytes } from 'node:crypto';
import { createEngine, type Engine } from '../support/engine.ts';
import { migrate } from '../../src/engine/db/migrate.ts';
import { searchMemories } from '../../src/engine/memory/retrieval.ts';
import { MATCH_END, MATCH_START, searchChats } from '../../src/engine/queries/search.ts';
import { WORD_BREAK } from '../../src/engine/text/search-text.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { openMemoryDb, openTestEngine, readMigrations, testClock } from '../support/sqlite.ts';
import { checkMemoryIndex, checkTranscriptIndex } from '../support/dump.ts';

// Memories and the story found in every script (issue 34, part 1).

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
const NOW = '1890-06-01T20:00:00';

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  bot = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { name: 'Mira' }), draft.chat(chat, bot, { fictionTime: NOW })]);
});

function remember(summary: string): string {
  const id = engine.newId();
  engine.append([draft.memory(chat, id, bot, { summary, fictionTime: NOW })]);
  return id;
}

const recall = (query: string) => engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query, k: 4, now: NOW }).map((m) => m.id);

describe('memories in every script', () => {
  it.each([
    ['Japanese', 'ミラは古い灯台で銀の鍵を見つけた。', '銀の鍵はどこで見つかったの？', ['ミラは灯台のそばで天気の話をした。', 'タムは台所で魚のスープを作った。']],
    ['Chinese', '米拉在旧灯塔里找到了银钥匙。', '银钥匙是在哪里找到的？', ['米拉和艾达走过灯塔，聊着天气。', '塔姆在厨房里煮了鱼汤。']],
    ['Korean', '미라는 오래된 등대에서 은열쇠를 찾았다.', '은열쇠는 어디에서 찾았어?', ['미라와 에이다는 등대 옆을 걸었다.', '탐은 부엌에서 생선 수프를 끓였다.']],
    ['Russian', 'Мира нашла серебряный ключ в старом маяке.', 'Где нашли серебряные ключи?', ['Мира и Ада прошли мимо маяка.', 'Там сварил рыбный суп.']],
  ])('%s: a fact is found by a question with other particles and endings', (_language, fact, question, everyday) => {
    for (let day = 0; day < 5; day++) for (const line of everyday) remember(line);
    const id = remember(fact);
    for (let day = 0; day < 5; day++) for (const line of everyday) remember(line);
    expect(recall(question)[0]).toBe(id);
    checkMemoryIndex(db);
  });

  it('keeps English as it was: porter stemming, no loose word starts', () => {
    const ledger = remember('Ada hid the ledger in the chapel.');
    remember('Rain fell all evening.'); // apart, so neither is in the other's context
    remember('Tam cooked fish soup.');
    const ledge = remember('A gull sat on the ledge.');
    const ledgers = recall('Where are the ledgers?');
    expect(ledgers[0]).toBe(ledger);
    expect(ledgers).not.toContain(ledge);
    const ledges = recall('the ledges');
    expect(ledges[0]).toBe(ledge);
    expect(ledges).not.toContain(ledger);
  });
});

describe('the story searched in every script', () => {
  it('finds a word inside a sentence without spaces, and shows it without the index\'s word breaks', () => {
    const turn = engine.turns.beginTurn(engine.startChat(bot, kickoffInput()), '米拉在旧灯塔里找到了银钥匙。');
    engine.turns.finishTurn(turn, { text: 'ミラは古い灯台で銀の鍵を見つけた。', usage: null, truncated: false, reason: null, error: null });
    const [chinese] = engine.searchChats('钥匙');
    expect(chinese?.snippet).toContain(`${MATCH_START}钥匙${MATCH_END}`);
    expect(chinese?.snippet).not.toContain(WORD_BREAK);
    const [japanese] = engine.searchChats('灯台');
    expect(japanese?.snippet).toContain(`${MATCH_START}灯台${MATCH_END}`);
    expect(engine.searchChats('銀の鍵')).toHaveLength(1);
    expect(engine.searchChats('金の鍵')).toEqual([]);
  });

  it('finds a Hindi or Thai word whole, its vowel signs part of it, and not through another word with the same letters', () => {
    const turn = engine.turns.beginTurn(engine.startChat(bot, kickoffInput()), 'मीरा ने पुराने प्रकाशस्तंभ में चाँदी की चाबी पाई।');
    engine.turns.finishTurn(turn, { text: 'มิราไปโรงเรียนริมทะเล', usage: null, truncated: false, reason: null, error: null });
    const [hindi] = engine.searchChats('चाबी');
    expect(hindi?.snippet).toContain(`${MATCH_START}चाबी${MATCH_END}`);
    // Read without its vowel signs, चाबी was च and ब, and so was this other word.
    expect(engine.searchChats('चुब')).toEqual([]);
    const [thai] = engine.searchChats('โรงเรียน');
    expect(thai?.snippet).toContain(`${MATCH_START}โรงเรียน${MATCH_END}`);
    checkTranscriptIndex(db);
  });

  it('finds a Korean word with another particle', () => {
    const turn = engine.turns.beginTurn(engine.startChat(bot, kickoffInput()), '미라는 오래된 등대에서 은열쇠를 찾았다.');
    engine.turns.finishTurn(turn, { text: '탐은 웃었다.', usage: null, truncated: false, reason: null, error: null });
    expect(engine.searchChats('은열쇠는')).toHaveLength(1);
  });
});

describe('a database from before (migration 0038)', () => {
  it('indexes its memories and story again, so what was written in Japanese and Chinese is found', async () => {
    const old = await openMemoryDb();
    const files = readMigrations();
    const before = files.findIndex((f) => f.name.startsWith('0038_'));
    await migrate(old, files.slice(0, before), () => 0);
    old.run("INSERT INTO chats (id, bot_id, title, created_ts, created_seq, last_seq) VALUES ('c', 'b', 'Old story', 0, 1, 3)");
    old.run("INSERT INTO transcript (chat_id, turn_id, seq, role, speaker, text, status) VALUES ('c', 't', 2, 'user', 'you', '米拉在旧灯塔里找到了银钥匙。', 'done')");
    old.run(
      `INSERT INTO memories (created_seq, id, owner_id, chat_id, scene_id, summary, witness_you, witness_host, witness_guest, fiction_time, source, reliability, significance, pinned, auto_pinned, keywords)
       VALUES (3, 'm', 'b', 'c', NULL, 'ミラは古い灯台で銀の鍵を見つけた。', 1, 1, 0, '${NOW}', 'witnessed', 1, 1, 0, 0, '')`,
    );
    await migrate(old, files, () => 0);
    expect(searchChats(old, '钥匙').map((h) => h.seq)).toEqual([2]);
    expect(searchMemories(old, { ownerId: 'b', chatId: 'c', role: 'host', query: '銀の鍵はどこ？', k: 4, now: NOW }).map((m) => m.id)).toEqual(['m']);
    checkMemoryIndex(old);
  });
});

describe('a database from before its story index kept no positions (migration 0069)', () => {
  it('indexes its story again, smaller, and finds what it found before, Hindi words whole', async () => {
    const old = await openMemoryDb();
    const files = readMigrations();
    const at = files.findIndex((f) => f.name.startsWith('0069_'));
    await migrate(old, files.slice(0, at), () => 0);
    const story = createEngine({ db: old, now: testClock().now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });
    const host = story.newId();
    story.append([draft.you(), draft.bot(host, { name: 'Mira' })]);
    const storyChat = story.startChat(host, kickoffInput());
    for (let i = 0; i < 200; i++) {
      const turn = story.turns.beginTurn(storyChat, `"Turn ${i}: where is the lantern?" I ask.`);
      story.turns.finishTurn(turn, { text: `Mira lifts the lantern over the chart of the bay, turn ${i}. चाँदी की चाबी.`, usage: null, truncated: false, reason: null, error: null });
    }
    // The best hits of a few searches, in the order shown.
    const found = (on: Db) => ['chart 137', 'lantern 42', 'where 7', 'lantern'].map((words) => searchChats(on, words).map((h) => h.seq));
    const before = found(old);
    expect(before.map((hits) => hits.length)).toEqual([1, 2, 11, 50]);
    const indexBytes = () => old.get<{ n: number }>("SELECT sum(pgsize) AS n FROM dbstat WHERE name = 'transcript_fts_data'")!.n;
    const bytesBefore = indexBytes();

    await migrate(old, files, () => 0);
    // Every turn waits for the index made afresh.
    expect(old.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n).toBe(old.get<{ n: number }>('SELECT count(*) AS n FROM transcript_rows')!.n);
    expect(found(old)).toEqual(before);
    expect(indexBytes()).toBeLessThan(bytesBefore * 0.5);
    expect(searchChats(old, 'चाबी').length).toBeGreaterThan(0);
    expect(searchChats(old, 'चुब')).toEqual([]);
    checkTranscriptIndex(old);
  });
});
