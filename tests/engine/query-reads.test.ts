import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { API, type QueryName } from '../../src/engine/api.ts';
import { observedDb, querySamples } from '../support/query-samples.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import { openEngine } from '../support/engine.ts';
import { PROJECTED_TABLES } from '../../src/engine/events/tables.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { testLeader } from '../support/leader.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { loadSqlite, readMigrations } from '../support/sqlite.ts';

/**
 * Each query's `reads` is what tells a tab to refetch it: a table it reads but does not declare is a
 * screen that stays stale when that table changes. SQLite's authorizer names every table a statement
 * reads as it is prepared, so each statement a query runs is prepared again with it on.
 */

const SQLITE_READ = 20;
/** What a full-text index is an index of: a change to the table is a change to its index. */
const INDEX_OF: Record<string, string> = { memories_fts: 'memories', transcript_fts: 'transcript', transcript_rows: 'transcript', value_change_rows: 'value_changes', edge_fact_rows: 'edge_facts', memory_rows: 'memories' };
/**
 * Tables outside the projections that a query may read without declaring them, and why its answer
 * cannot go stale through them.
 */
const UNDECLARED_OK: Record<string, string> = {
  events:
    'the log: rows never change, and an event that adds what such a query reads (a manual edit, a kept card, a lore entry, a turn awaiting analysis) also writes the projected table the query declares for it (state_edits, bot_cards, lore_entries, transcript)',
  event_rows: 'the log\'s rows under its view `events` (migration 0056): the same as `events`',
  chat_refs: 'the numbers the log names chats by: given once, never changed',
  device_refs: 'the numbers the log names devices by: given once, never changed',
  json_each: 'a table-valued function, not a table',
  transcript_fts_pending: 'rows still to index: a search indexes them first, and its answer comes from the transcript, which it declares',
  memories_fts_pending: 'the same for memories',
};

async function recordingStory() {
  const sqlite3 = await loadSqlite();
  const raw = new sqlite3.oo1.DB(':memory:', 'c');
  const { db, statements } = observedDb(wrapSqlite(sqlite3, raw));
  /** The tables one statement reads, from SQLite itself. */
  const tablesRead = (sql: string): string[] => {
    const read = new Set<string>();
    sqlite3.capi.sqlite3_set_authorizer(raw.pointer!, (_: number, code: number, table: string | 0) => {
      if (code === SQLITE_READ && table) read.add(INDEX_OF[table] ?? table);
      return 0;
    }, 0);
    try {
      const statement = raw.prepare(sql);
      // A write's WHERE reads too, but a query's answer is what its SELECTs read.
      if (!sqlite3.capi.sqlite3_stmt_readonly(statement.pointer!)) read.clear();
      statement.finalize();
    } finally {
      sqlite3.capi.sqlite3_set_authorizer(raw.pointer!, 0 as never, 0);
    }
    return [...read];
  };
  const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
  return { engine, db, statements, tablesRead };
}

const ANALYSIS = JSON.stringify({
  minutesPassed: 20,
  significance: 2,
  sceneEnd: 'none',
  newPlace: '',
  feelings: { 'Mira -> Ada': { affinityDelta: 5, trustDelta: 3, newFacts: ['Ada keeps a silver key.'] } },
});

/** Prose for the narrator and the player's draft, the same analysis for every structured call. */
const llm: LlmClient = {
  async complete(_messages, options) {
    return { text: options.json ? ANALYSIS : 'Ada raises the lantern.', usage: null, model: options.model, finishReason: 'stop' };
  },
  async *stream() {
    yield { type: 'delta', text: 'Mira takes the lantern. ' };
    yield { type: 'delta', text: 'She sets it down.' };
  },
};

it("declares every table each query reads (SQLite's authorizer), so no screen stays stale", async () => {
  const { engine, statements, tablesRead } = await recordingStory();
  const { leader, client } = testLeader(engine, llm);
  // A story with something in every table a query can read.
  const bot = engine.newId();
  // A card long enough that its words are kept apart from the reply's report (`prompt_text_kept`).
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira', persona: 'A captain who knows every reef of the coast. '.repeat(8) })]);
  const chat = engine.startChat(bot, kickoffInput());
  await client.sendTurn(chat, '"Take the lantern."');
  await leader.idle();
  await client.sendTurn(chat, '*waits*');
  await leader.idle();
  await client.closeScene(chat);
  await leader.idle();
  const lorebook = await client.addLorebook({ text: JSON.stringify({ entries: { '1': { uid: 1, key: ['lantern'], content: 'The lantern is old.' } } }), fileName: 'coast.json' });
  await client.attachLorebook(chat, lorebook, true);
  const gone = engine.startChat(bot, kickoffInput());
  await client.deleteChat(gone);
  const turns = (await client.transcript(chat)).turns;
  const reply = turns.filter((t) => t.role === 'assistant').at(-1)!;
  await leader.idle();

  const sample = querySamples({ bot, chat, lorebook, replyTurnId: reply.turnId, rewindSeq: turns[1]!.seq, searchWords: 'lantern' });
  const undeclared: string[] = [];
  for (const [name, declaration] of Object.entries(API)) {
    // A query without `reads` is asked once for an action and cannot be kept live (LiveQueryName).
    if (declaration.kind !== 'query' || !declaration.reads) continue;
    statements.clear();
    await leader.call(name, sample[name as QueryName]);
    await leader.idle();
    const declared = new Set<string>(declaration.reads);
    const read = new Set([...statements].flatMap(tablesRead));
    for (const table of read) {
      if (declared.has(table) || Object.hasOwn(UNDECLARED_OK, table)) continue;
      undeclared.push(`${name} reads ${table}${(PROJECTED_TABLES as readonly string[]).includes(table) ? '' : ' (not a projected table: no change notice names it)'}`);
    }
  }
  expect(undeclared).toEqual([]);
});

it('catches a query that reads a table it does not declare', async () => {
  const { engine, statements, tablesRead } = await recordingStory();
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
  const chat = engine.startChat(bot, kickoffInput());
  statements.clear();
  engine.chatState(chat);
  const read = new Set([...statements].flatMap(tablesRead));
  // chatState reads edges; a declaration without it would be caught by the test above.
  expect(read.has('edges')).toBe(true);
  expect(read.has('memories')).toBe(true);
});

it('opens a page of the transcript without walking every reply of the log (a 10,000-turn chat opens as a new one does)', async () => {
  const { engine, db, statements } = await recordingStory();
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
  const chat = engine.startChat(bot, kickoffInput());
  for (let i = 0; i < 3; i++) {
    const started = engine.turns.beginTurn(chat, `"Line ${i}."`);
    engine.turns.finishTurn(started, { text: `Mira answers ${i}.`, usage: null, truncated: false, reason: null, error: null });
  }
  const again = engine.turns.regenerate(chat);
  engine.turns.finishTurn(again, { text: 'Another answer.', usage: null, truncated: false, reason: null, error: null });
  statements.clear();
  const page = engine.transcript(chat, { limit: 20 });
  engine.transcriptWindow(chat, { index: 0 }, 20);
  engine.transcript(chat, { afterSeq: page.turns[0]!.seq, limit: 20 });
  // A scan of the log, or of an index over it, visits every event (or every reply); so does a walk
  // of replies by their kind alone (a rare kind, a rewind, may be walked so).
  const walks = [...statements].flatMap((sql) =>
    db
      .all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .map((row) => row.detail)
      .filter((detail) => /^SCAN (events|[a-z])\b/.test(detail) || (/INDEX events_by_kind \(kind=\?\)$/.test(detail) && !sql.includes("'chat_rewound'")))
      .map((detail) => `${detail} in ${sql.replace(/\s+/g, ' ').slice(0, 120)}`),
  );
  expect(walks).toEqual([]);
});
