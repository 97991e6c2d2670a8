import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { memoryQuery } from '../../src/engine/memory/retrieval.ts';
import { indexAllPendingMemories } from '../../src/engine/queries/search-index.ts';
import { narratorPrompt } from '../../src/engine/turn/narrator-prompt.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { checkMemoryIndex } from '../support/dump.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
let guest: string;
const count = await loadTokenCounter();
const NOW = '1890-06-01T20:00:00';

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  bot = engine.newId();
  guest = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { name: 'Mira' }), draft.bot(guest, { name: 'Tam' }), draft.chat(chat, bot, { fictionTime: NOW })]);
});

function remember(summary: string, over: Record<string, unknown> = {}): string {
  const id = engine.newId();
  engine.append([draft.memory(chat, id, (over.ownerId as string) ?? bot, { summary, fictionTime: NOW, ...over })]);
  return id;
}

const search = (query: string, k = 4) => engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query, k, now: NOW });

describe('searchMemories', () => {
  it('ranks a relevant, recent, significant memory above an old trivial one that matches the words better', () => {
    const old = remember('Lighthouse keeper. The lighthouse keeper.', { significance: 0, fictionTime: '1889-01-01T09:00:00' });
    for (let i = 0; i < 20; i++) remember(`Mira mended sail number ${i} on the quiet deck.`);
    const recent = remember('On the cliff path Ada finally admitted that the old lighthouse keeper is in fact her own father.', { significance: 2 });

    // Words alone (in the memories' own text) would put the old one first: the boosts are what reorder them.
    indexAllPendingMemories(db);
    const byWords = db.all<{ id: string }>(
      `SELECT m.id FROM memories_fts JOIN memories m ON m.created_seq = memories_fts.rowid
       WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts)`,
      [`summary : (${memoryQuery('the lighthouse keeper')})`],
    );
    expect(byWords.map((r) => r.id)).toEqual([old, recent]);
    // (The sail mended just before the recent one follows them: the keeper is in its context.)
    expect(search('Tell me about the lighthouse keeper.').map((m) => m.id).slice(0, 2)).toEqual([recent, old]);
  });

  it('never returns a memory the bot did not witness, nor another bot\'s, however well it matches', () => {
    const seen = remember('Ada buried the silver key under the third oak.');
    remember('Ada buried the silver key under the third oak while Mira slept below deck.', { witness: { you: true, host: false, guest: false } });
    remember('The silver key is under the third oak, Ada told Tam.', { ownerId: guest, witness: { you: true, host: false, guest: true } });
    remember('Pinned, but unseen: the silver key under the third oak.', { witness: { you: true, host: false, guest: true }, pinned: true });

    const found = search('silver key third oak', 10);
    expect(found.map((m) => m.id)).toEqual([seen]);
    expect(found.every((m) => m.ownerId === bot && m.witness.host)).toBe(true);

    const prompt = narratorPrompt(db, chat, Number.MAX_SAFE_INTEGER, engine.settings(), count).messages[0]!.content;
    expect(prompt).not.toContain('slept below deck');
    expect(prompt).not.toContain('Ada told Tam');
    expect(prompt).not.toContain('Pinned, but unseen');
  });

  it('puts pinned memories in the prompt whatever the query, and recalled ones that fit it', () => {
    remember('Mira swore never to sail under the black flag again.', { pinned: true, significance: 3, autoPinned: true });
    remember('The cook burned the bread on Tuesday.');
    // Beside the tea, so found by its words too (memory-context.test.ts): the bread is not.
    remember('A gull landed on the rail.');
    remember('Ada likes her tea with honey.');
    engine.append([draft.userTurn(chat, engine.newId(), 'Would you make me some tea?')]);
    const prompt = narratorPrompt(db, chat, Number.MAX_SAFE_INTEGER, engine.settings(), count);
    const system = prompt.messages[0]!.content;
    expect(system).toContain('black flag');
    expect(system).toContain('tea with honey');
    expect(system).not.toContain('burned the bread');
    // A pinned memory is not also spent as one of the k recalled ones.
    const recalled = search('black flag tea').map((m) => m.summary);
    expect(recalled[0]).toBe('Ada likes her tea with honey.');
    expect(recalled).not.toContain('Mira swore never to sail under the black flag again.');
  });

  it('words no memory holds never crowd out the ones that find something, however common those are', () => {
    // Over a thousand memories hold "compass": a common word, which alone would be left out of
    // the search if two rarer words stayed. Words no memory holds are not rarer; they are absent.
    engine.append(Array.from({ length: 1_100 }, (_, i) => draft.memory(chat, engine.newId(), bot, { summary: `The compass pointed north on day ${i}.`, fictionTime: NOW })));
    const found = search('Zeppelin whereabouts: where is the compass?');
    expect(found).toHaveLength(4);
    expect(found.every((m) => m.summary.includes('compass'))).toBe(true);
  });

  it('words in a thousand memories are not weighed one by one: the newest holding them answer, while a rarer word searches the whole chat', () => {
    const old = remember('Ada hid the compass inside the zeppelin hangar, north wall.', { fictionTime: '1889-01-01T09:00:00' });
    engine.append(Array.from({ length: 1_200 }, (_, i) => draft.memory(chat, engine.newId(), bot, { summary: `The compass pointed north on day ${i}.`, fictionTime: NOW })));
    const newestNorth = remember('The compass pointed north again, steady as ever.');
    // Only common words: the newest memory holding both leads.
    const common = search('compass north');
    expect(common[0]!.id).toBe(newestNorth);
    expect(common.every((m) => m.summary.includes('compass'))).toBe(true);
    // A rarer word finds the oldest memory of the chat under 1,200 newer ones sharing the rest.
    expect(search('Where is the compass from the zeppelin?')[0]!.id).toBe(old);
  });

  it('a question that names a story time finds what was remembered then, in no shared words, and still nothing unwitnessed', () => {
    const then = remember('Ada slipped a brass key into the lining of her coat.', { fictionTime: '1890-05-03T10:20:00' });
    remember('The key to the cellar hangs by the door.', { fictionTime: '1890-05-31T10:00:00' });
    remember('Ada told Tam about the letter.', { fictionTime: '1890-05-03T10:30:00', witness: { you: true, host: false, guest: true } });
    for (let i = 0; i < 10; i++) remember(`Gulls over the harbour, evening ${i}.`, { fictionTime: `1890-05-2${i % 9}T18:00:00` });
    expect(search('What did Ada do on 3 May 1890, 10:20?').map((m) => m.id)[0]).toBe(then);
    expect(search('What happened four weeks ago?').map((m) => m.id)).toContain(then);
    expect(search('What did Ada do on 3 May 1890?').every((m) => m.witness.host)).toBe(true);
  });

  it('asked about two things, the answer holds both, not only the best of the one talked about more', () => {
    for (let i = 0; i < 20; i++) remember(`Mira mended sail number ${i} on the quiet deck.`);
    for (let i = 0; i < 6; i++) remember(`Ada swam ${i + 2} lengths; the swimming gets easier.`);
    for (let i = 0; i < 6; i++) remember(`At lesson ${i + 2} the old teacher said Ada's cello bowing was worse than last week.`);
    const found = search('Tell me about my swimming and my cello.');
    expect(found.filter((m) => m.summary.includes('cello'))).not.toHaveLength(0);
    expect(found.filter((m) => m.summary.includes('swimming'))).not.toHaveLength(0);
  });

  it('asked what came first, the earliest fitting memory leads, not the latest', () => {
    const first = remember('Ada said she and Tomás were reading about adoption agencies.', { fictionTime: '1890-03-01T19:00:00' });
    remember('The adoption agency sent a long questionnaire.', { fictionTime: '1890-04-01T19:00:00' });
    const latest = remember('The adoption was approved at last.', { fictionTime: '1890-05-30T19:00:00' });
    expect(search('Tell me about the adoption.')[0]!.id).toBe(latest);
    expect(search('When did I first bring up the adoption?')[0]!.id).toBe(first);
  });

  it("finds a memory by its keywords, and a scene's summary by the keywords of what it absorbed", () => {
    const swim = remember('Ada floated on her back for the first time.', { keywords: 'swimming, pool, lessons' });
    const sea = remember('Ada put her face under the water at Peniche.', { keywords: 'sea, deep water, beach' });
    remember('Mira sold three atlases.', { keywords: 'bookshop, sales' });
    expect(search('How is the swimming going?').map((m) => m.id)).toEqual([swim]);
    const summary = remember('Ada is learning to swim, pool first and then the sea.');
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: summary, summary: 'Ada learned to swim.', absorbs: [swim, sea] } }]);
    const [found] = search('Did she go to the beach?');
    expect(found!.id).toBe(summary);
    expect(found!.keywords).toBe('swimming, pool, lessons, sea, deep water, beach');
  });

  it("a scene's summary keeps each keyword of what it absorbed once, though every turn named the same place and people", () => {
    const turns = Array.from({ length: 13 }, (_, i) => remember(`Ada and Mara talked in the Lantern Room, part ${i + 1}.`, { keywords: `connection, The Lantern Room, Mara, ${i % 2 ? 'tea' : 'Tea'}` }));
    const summary = remember('Ada and Mara talked all evening.', { keywords: 'Mara, evening' });
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: summary, summary: 'Ada and Mara talked all evening in the Lantern Room.', absorbs: turns } }]);
    const [found] = search('the Lantern Room');
    expect(found!.id).toBe(summary);
    expect(found!.keywords).toBe('Mara, evening, connection, The Lantern Room, Tea');
  });

  it('finds a memory written a moment ago though its index entry waits, and the index stays whole through changes', () => {
    const waiting = () => db.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts_pending')!.n;
    const kite = remember('Ada flew a red kite over the dunes.');
    const gull = remember('A gull stole the bread.');
    expect(waiting()).toBe(2);
    // The gull's memory comes too, after it: the kite is in its context (the turn before it).
    expect(search('the red kite').map((m) => m.id)).toEqual([kite, gull]);
    expect(waiting()).toBe(0);
    // One changed after indexing, one written and changed while waiting, one removed with its reply.
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: gull, summary: 'A heron stole the bread.', absorbs: [] } }]);
    const fog = remember('Fog over the harbour.');
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: fog, summary: 'Sea mist over the harbour.', absorbs: [] } }]);
    // Neither the memory nor its neighbours' context keeps a word that is gone.
    expect(search('gull')).toEqual([]);
    expect(search('heron')[0]!.id).toBe(gull);
    expect(search('fog')).toEqual([]);
    expect(search('mist')[0]!.id).toBe(fog);
    checkMemoryIndex(db);
  });

  it('reads user text as words, never as query syntax', () => {
    remember('Ada asked about NEAR harbours and the "quoted" AND unquoted things.');
    for (const hostile of ['NEAR(a b)', '"unbalanced', 'a AND OR NOT *', '^start col:umn', '((ooc))', '', '   ', '!!!']) {
      expect(() => search(hostile)).not.toThrow();
    }
    expect(search('"quoted" AND*').length).toBe(1);
    expect(memoryQuery('The "map" and the MAP, harbour: map!')).toBe('"map" OR "harbour"');
  });
});
