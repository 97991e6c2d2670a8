import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { API, type QueryName } from '../../src/engine/api.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { openEngine } from '../support/engine.ts';
import { observedDb, querySamples } from '../support/query-samples.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { testLeader } from '../support/leader.ts';
import { openMemoryDb, readMigrations } from '../support/sqlite.ts';

/**
 * What a player does in a story (opens it, reads the drawer and "Why?", sends, regenerates, edits,
 * closes a scene) must cost the same in its thousandth turn as in its tenth: a statement that walks
 * every row of the log, the transcript or the memories is fast in every short test story and seconds
 * in a year-long one. A plan check catches the walks it knows the shape of; this counts the work
 * itself. SQLite's virtual-machine steps (its progress handler) are counted for each call in a
 * story of SHORT turns and again in one of LONG: the content is the same kind in both (the words of
 * each turn its own, the known facts a few, both longer than the 300 turns the narrator's prompt
 * reads back), so whatever the long story costs more is work that grows with its length.
 */

const SHORT = 400;
const LONG = 1_600;
const STEPS_PER_CALL = 10;

/**
 * Calls whose work grows with the story by design, with why. Their statements are not held to the
 * story's length at all.
 */
const WHOLE_STORY: Partial<Record<string, string>> = {
  exportLog: 'the whole log, written out',
  exportChat: 'the whole chat, written out',
};

/**
 * Statements whose work may grow with the story, each with the steps a turn it may add and why: a
 * call's growth less theirs must stay within a fifth. A count of the transcript's index (no row
 * read) is about six steps a line.
 */
const GROWING_STATEMENTS: { sql: RegExp; perTurn: number; why: string }[] = [
  {
    sql: /^SELECT (\(SELECT )?count\(\*\)( AS n)? FROM transcript WHERE chat_id = \?/,
    perTurn: 12,
    why: "a line's number or the story's length (the scrollbar, a page opened at a place, \"Why?\"'s links, a rewind's preview), counted in the transcript's index",
  },
  {
    sql: /^SELECT id, owner_id AS owner, pinned FROM memories WHERE chat_id = \?/,
    perTurn: 40,
    why: "a rewind's preview compares the chat's memories before and after (a pin taken back on an old memory is a pin lost)",
  },
  {
    sql: /^WITH hits \(seq, bm\) AS \(/,
    perTurn: 40,
    why: "retrieval weighs every memory holding the question's rarer words, up to 1,000 a word (COMMON_TERM_DOCS), past which the word counts as common: the place's name, a keyword of each scene's summary there, is in more of them as the story goes on",
  },
  {
    sql: /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM memories_fts WHERE memories_fts MATCH \? LIMIT 1000\)/,
    perTurn: 10,
    why: 'how rare each word of the question is: counted up to 1,000 memories',
  },
];

let wordSeed = 0;
/** A made-up word no other turn uses, so retrieval and search find a turn's lines and no others. */
const freshWord = () => `w${(wordSeed++).toString(36)}x`;
const FACTS = ['Ada keeps a silver key.', 'Ada fears deep water.', 'Ada owes Mira a favour.'];

const llm: LlmClient = {
  async complete(_messages, options) {
    const analysis = {
      minutesPassed: 5,
      significance: 2,
      sceneEnd: 'none',
      newPlace: '',
      feelings: { 'Mira -> Ada': { affinityDelta: 1, trustDelta: 1, newFacts: [FACTS[wordSeed % FACTS.length]] } },
    };
    return { text: options.json ? JSON.stringify(analysis) : `${freshWord()} ${freshWord()}.`, usage: null, model: options.model, finishReason: 'stop' };
  },
  async *stream() {
    yield { type: 'delta', text: `${freshWord()} ${freshWord()}. ` };
    yield { type: 'delta', text: `${freshWord()} ${freshWord()}.` };
  },
};

/** The database, with each step counted against the statement that takes it. */
async function countingDb() {
  const inner = await openMemoryDb();
  const { db, running } = observedDb(inner);
  const by = new Map<string, number>();
  /** The steps `call` takes, in all and by statement. */
  const count = async (call: () => Promise<unknown>): Promise<{ steps: number; by: Map<string, number> }> => {
    by.clear();
    let steps = 0;
    inner.onSteps(STEPS_PER_CALL, () => {
      steps += STEPS_PER_CALL;
      by.set(running(), (by.get(running()) ?? 0) + STEPS_PER_CALL);
    });
    try {
      await call();
    } finally {
      inner.onSteps(0, null);
    }
    return { steps, by: new Map(by) };
  };
  return { db, count };
}

async function storyOf(turns: number) {
  const { db, count } = await countingDb();
  const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
  const { leader, client } = testLeader(engine, llm);
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
  const chat = engine.startChat(bot, kickoffInput());
  // Written as the log holds a played story (each reply with the feeling and the memory its
  // analysis gives), a scene closed every 20 turns; played through the leader it took minutes.
  for (let i = 0; i < turns; i += 20) {
    const drafts: EventDraft[] = [];
    for (let j = i; j < i + 20; j++) {
      const turnId = engine.newId();
      drafts.push(draft.userTurn(chat, engine.newId(), `"${freshWord()} ${freshWord()}."`), draft.assistantStarted(chat, turnId, bot), draft.assistantTurn(chat, turnId, bot, `${freshWord()} ${freshWord()}.`));
      const reply = drafts.length - 1;
      drafts.push(
        { ...draft.edge(chat, bot, 'you', { affinityDelta: 1, facts: [FACTS[j % FACTS.length]] }), causeDraft: reply },
        { ...draft.memory(chat, engine.newId(), bot, { summary: `${freshWord()} ${freshWord()} ${freshWord()}.` }), causeDraft: reply },
      );
    }
    engine.append(drafts);
    await client.closeScene(chat);
    await leader.idle();
  }
  // In play every search indexes the few lines and memories written since the last: a story
  // written whole waits to be indexed all at once, and is, here, before anything is counted.
  await leader.call('searchChats', ['anything']);
  await leader.call('prepareToSend', [chat]);
  /** The steps one call takes, with the background work it sets off. */
  const stepsOf = (call: () => Promise<unknown>) =>
    count(async () => {
      await call();
      await leader.idle();
    });
  return { engine, leader, client, bot, chat, stepsOf };
}

type Story = Awaited<ReturnType<typeof storyOf>>;

/** Every call measured, in the order a player would make them. */
async function measure(story: Story): Promise<Map<string, { steps: number; by: Map<string, number> }>> {
  const { leader, client, bot, chat, stepsOf } = story;
  const turns = (await client.transcript(chat, { limit: 50 })).turns;
  const reply = turns.filter((t) => t.role === 'assistant').at(-1)!;
  const said = turns.filter((t) => t.role === 'user').at(-3)!;
  const sample = querySamples(
    { bot, chat, lorebook: '00000000-0000-4000-8000-000000000000', replyTurnId: reply.turnId, rewindSeq: said.seq, searchWords: said.text.split(' ').at(-1)!.replace(/\W/g, '') },
    // A page opened by its place among the turns; "Why?" of the feeling every reply moves.
    { transcriptWindow: [chat, { index: 10 }], valueHistory: [chat, { type: 'edge', source: bot, target: 'you' }, 'affinity'] },
  );
  const steps = new Map<string, { steps: number; by: Map<string, number> }>();
  for (const [name, declaration] of Object.entries(API)) {
    if (declaration.kind !== 'query') continue;
    steps.set(name, await stepsOf(() => leader.call(name, sample[name as QueryName]).catch(() => undefined)));
  }
  steps.set('sendTurn', await stepsOf(() => client.sendTurn(chat, `"${freshWord()} ${freshWord()}?"`)));
  steps.set('regenerate', await stepsOf(() => client.regenerate(chat)));
  const latest = (await client.transcript(chat, { limit: 2 })).turns.at(-1)!;
  steps.set('editTurn', await stepsOf(() => client.editTurn(chat, latest.turnId, `${freshWord()} ${freshWord()}.`)));
  steps.set('setTurnHidden', await stepsOf(() => client.setTurnHidden(chat, said.turnId, true)));
  steps.set('setTurnHidden undone', await stepsOf(() => client.setTurnHidden(chat, said.turnId, false)));
  steps.set('closeScene', await stepsOf(() => client.closeScene(chat)));
  return steps;
}

it(`costs the same steps in a story of ${LONG} turns as in one of ${SHORT}: open, the drawer, "Why?", Send and its analysis, regenerate, edit, delete, close a scene`, async () => {
  const short = await measure(await storyOf(SHORT));
  const long = await measure(await storyOf(LONG));
  const grew: string[] = [];
  for (const [name, before] of short) {
    if (WHOLE_STORY[name]) continue;
    const after = long.get(name)!;
    const growthOf = (sql: string) => (after.by.get(sql) ?? 0) - (before.by.get(sql) ?? 0);
    const allowed = new Set([...after.by.keys()].filter((sql) => GROWING_STATEMENTS.some((g) => g.sql.test(sql) && growthOf(sql) <= g.perTurn * (LONG - SHORT))));
    const growth = after.steps - before.steps - [...allowed].reduce((sum, sql) => sum + growthOf(sql), 0);
    if (growth <= before.steps * 0.2 + 1_000) continue;
    // The statements that grew most: where to look.
    const most = [...after.by.keys()].filter((sql) => !allowed.has(sql)).map((sql) => [sql, growthOf(sql)] as const).sort((a, b) => b[1] - a[1]).slice(0, 3);
    grew.push(`${name}: ${before.steps} steps at ${SHORT} turns, ${after.steps} at ${LONG}; most in ${most.map(([sql, n]) => `+${n}: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ')}`);
  }
  expect(grew).toEqual([]);
}, 180_000);
