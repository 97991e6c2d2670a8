import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { checkMemoryIndex } from '../support/dump.ts';

// A memory is found with the words around it (issue 33, part 6): its neighbours' text and its
// scene's first memory are indexed with it, weighed below its own words.

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
const NOW = '1890-06-01T20:00:00';
const HOST_ONLY = { you: true, host: true, guest: false };
const GUEST_ONLY = { you: true, host: false, guest: true };

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  bot = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { name: 'Mira' }), draft.chat(chat, bot, { fictionTime: NOW })]);
});

function remember(summary: string, over: Record<string, unknown> = {}): string {
  const id = engine.newId();
  engine.append([draft.memory(chat, id, bot, { summary, fictionTime: NOW, ...over })]);
  return id;
}

const search = (query: string, k = 4) => engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query, k, now: NOW }).map((m) => m.id);

/** Days of unrelated talk, so the words asked about are rare, as in a long story. */
function smallTalk(n: number) {
  for (let i = 0; i < n; i++) remember(`Mira mended sail number ${i} while the crew sang on the quiet deck.`);
}

describe('memories found by the words around them', () => {
  it('finds the answer given the turn after the question, by the question\'s words', () => {
    smallTalk(20);
    remember('Ada asked what Mira keeps locked in the old sea chest.');
    const answer = remember("Mira said: her father's brass compass and three unopened letters.");
    smallTalk(20);
    // The answer holds none of the question's words; the turn before it holds them all.
    expect(search('What is in the sea chest?')).toContain(answer);
    // Its own words still find it first.
    expect(search('the brass compass')[0]).toBe(answer);
  });

  it('reaches past the neighbours to the scene it happened in', () => {
    const scene = engine.newId();
    remember('At the harbour market Finn sold Mara\'s map to the guards.', { sceneId: scene });
    for (let i = 0; i < 5; i++) remember(`Mara and Mira argued about the tide, round ${i}.`, { sceneId: scene });
    const vow = remember('Mara swore she would never forgive him.', { sceneId: scene, significance: 2 });
    smallTalk(20);
    expect(search('Finn and the guards at the market', 10)).toContain(vow);
  });

  it('never lends a memory the words of one its reader did not witness', () => {
    smallTalk(10);
    remember('Tam whispered where the smuggled rubies are buried.', { witness: GUEST_ONLY });
    const after = remember('Mira checked the anchor chain.', { witness: HOST_ONLY });
    smallTalk(10);
    // The host never heard the whisper: asked about rubies, nothing of its own answers.
    expect(search('Where are the rubies buried?')).toEqual([]);
    // The memory beside the whisper is still found by its own words.
    expect(search('the anchor chain')[0]).toBe(after);
  });

  it('forgets a neighbour\'s words when the neighbour is rewound, rewritten or absorbed', () => {
    smallTalk(10);
    const answer = remember("Mira said it holds her father's brass compass.");
    const from = engine.headSeq() + 1;
    remember('Ada asked again what the sea chest holds.');
    expect(search('the sea chest')).toContain(answer);
    engine.rewind(chat, from);
    expect(search('the sea chest')).toEqual([]);
    // A rewritten neighbour lends its new words, not its old ones.
    const question = remember('Ada asked about the sea chest.');
    expect(search('the sea chest')).toContain(answer);
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: question, summary: 'Ada asked about the lantern.', absorbs: [] } }]);
    expect(search('the sea chest')).toEqual([]);
    expect(search('the lantern')).toContain(answer);
    // A neighbour absorbed into a scene's summary is gone, and its words with it.
    const summary = remember('Later, Ada and Mira watched the tide.');
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: summary, summary: 'Ada and Mira watched the tide.', absorbs: [question] } }]);
    expect(search('the lantern')).not.toContain(answer);
    expect(search('the tide')).toContain(answer);
    checkMemoryIndex(db);
  });

  it('finds the same memories after a full rebuild as it did kept up turn by turn', () => {
    const scene = engine.newId();
    smallTalk(8);
    remember('Ada asked what Mira keeps locked in the old sea chest.', { sceneId: scene });
    remember("Mira said: her father's brass compass and three unopened letters.", { sceneId: scene });
    remember('Tam whispered where the smuggled rubies are buried.', { witness: GUEST_ONLY, sceneId: scene });
    remember('Mira checked the anchor chain.', { sceneId: scene });
    smallTalk(8);
    const questions = ['What is in the sea chest?', 'rubies', 'the anchor chain', 'sail deck', 'compass letters'];
    const before = questions.map((q) => search(q, 10));
    engine.rebuild();
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts_pending')!.n).toBe(0);
    expect(questions.map((q) => search(q, 10))).toEqual(before);
    checkMemoryIndex(db);
  });
});
