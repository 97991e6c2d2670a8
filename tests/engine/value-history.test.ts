import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';
import { canonicalProjections, dumpProjections } from '../support/dump.ts';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/engine/db/migrate.ts';
import { createEngine } from '../support/engine.ts';
import { undoMigrationsSince } from '../support/migrations-undone.ts';
import { readMigrations, testClock } from '../support/sqlite.ts';

const count = await loadTokenCounter();
type Story = Awaited<ReturnType<typeof openStory>>;

/** One exchange, analysed with this answer. */
async function exchange({ engine, chat }: Story, line: string, analysis: Record<string, unknown>) {
  const turn = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(turn, { text: 'Mira looks at Ada for a long moment.', usage: null, truncated: false, reason: null, error: null });
  const feelings = Object.fromEntries(Object.entries((analysis.feelings ?? {}) as Record<string, object>).map(([pair, f]) => [pair, { affinityDelta: 0, trustDelta: 0, newFacts: [], ...f }]));
  const answer = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', ...analysis, feelings });
  const llm = scriptedLlm(answer, answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
}

const edge = (story: Story) => ({ type: 'edge' as const, source: story.bot, target: 'you' });
const feeling = (story: Story) => story.engine.chatState(story.chat)!.edges.find((e) => e.source === story.bot && e.target === 'you')!;

/** Rebuilding the whole database from the log gives what appending left, row for row. */
function expectRebuildAgrees({ engine, db }: Story) {
  const incremental = canonicalProjections(db);
  engine.rebuild();
  expect(canonicalProjections(db)).toEqual(incremental);
}

describe('where a value came from ("Why?")', () => {
  it('lists each change newest first: the turn it came from, whether the story or the player made it, and what it did', async () => {
    const story = await openStory();
    const { engine, chat } = story;
    await exchange(story, '"I brought you bread."', { feelings: { 'Mira -> Ada': { affinityDelta: 5, newFacts: ['Ada bakes her own bread.'] } } });
    await exchange(story, '"And I fixed your boat."', { feelings: { 'Mira -> Ada': { affinityDelta: 10 } } });
    engine.editState(chat, edge(story), 'trust', 80);

    const affinity = engine.valueHistory(chat, edge(story), 'affinity');
    expect(affinity.map((c) => [c.how, c.value, c.by])).toEqual([
      ['delta', 10, 'story'],
      ['delta', 5, 'story'],
    ]);
    // Each names the reply it came from: the story opens there (?turn=<seq>).
    const replies = engine.transcript(chat).turns.filter((t) => t.role === 'assistant');
    expect(affinity.map((c) => c.turnSeq)).toEqual([replies.at(-1)!.seq, replies.at(-2)!.seq]);
    expect(affinity[0]!.turnNumber).toBe(engine.transcript(chat).turns.length);

    const trust = engine.valueHistory(chat, edge(story), 'trust');
    expect(trust[0]).toMatchObject({ how: 'set', value: 80, by: 'player', turnSeq: replies.at(-1)!.seq });
    expect(engine.valueHistory(chat, edge(story), 'knowledge')).toMatchObject([{ how: 'add', value: 'Ada bakes her own bread.', by: 'story' }]);
    // The kickoff's place and the clock say they came from the opening scene.
    expect(engine.valueHistory(chat, { type: 'activity', entity: story.bot }, 'slot').at(-1)).toMatchObject({ by: 'opening' });
  });

  it("numbers each change's line as the story counts its lines, deleted ones left out, for one field and for all", async () => {
    const story = await openStory();
    const { engine, chat } = story;
    for (const line of ['"Bread."', '"A boat."', '"A net."', '"A lantern."']) await exchange(story, line, { feelings: { 'Mira -> Ada': { affinityDelta: 1 } } });
    const said = engine.transcript(chat).turns.filter((t) => t.role === 'user');
    engine.setTurnHidden(chat, said[1]!.turnId, true);
    const turns = engine.transcript(chat).turns;
    const lineOf = (seq: number) => turns.filter((t) => !t.hidden && t.seq <= seq).length;
    const affinity = engine.valueHistory(chat, edge(story), 'affinity');
    expect(affinity).toHaveLength(4);
    expect(affinity.map((c) => c.turnNumber)).toEqual(affinity.map((c) => lineOf(c.turnSeq!)));
    // The deleted line is not counted: the last reply is one line nearer the start than its place.
    expect(affinity[0]!.turnNumber).toBe(turns.length - 1);
    const all = engine.valueHistory(chat, edge(story));
    expect(all.filter((c) => c.field === 'affinity').map((c) => c.turnNumber)).toEqual(affinity.map((c) => c.turnNumber));
  });
});

describe('"Undo this change"', () => {
  it('takes one delta out while the changes after it stay, and leaves the other parts of the same answer', async () => {
    const story = await openStory();
    const { engine, chat } = story;
    await exchange(story, '"I brought you bread."', {
      feelings: { 'Mira -> Ada': { affinityDelta: 5, trustDelta: 4, newFacts: ['Ada bakes her own bread.', 'Ada lives by the quay.'] } },
    });
    await exchange(story, '"And I fixed your boat."', { feelings: { 'Mira -> Ada': { affinityDelta: 10 } } });
    expect(feeling(story)).toMatchObject({ affinity: 65, trust: 54 });

    const first = engine.valueHistory(chat, edge(story), 'affinity').at(-1)!;
    expect(engine.undoChange(chat, first.eventId, first.change)).toEqual({ laterValueStands: false });
    // +5 is gone, +10 stays; the same answer's trust and facts are untouched.
    expect(feeling(story)).toMatchObject({ affinity: 60, trust: 54, knowledge: ['Ada bakes her own bread.', 'Ada lives by the quay.'] });
    expect(engine.valueHistory(chat, edge(story), 'affinity').map((c) => c.undone)).toEqual([false, true]);

    // One fact of two taken back alone.
    const fact = engine.valueHistory(chat, edge(story), 'knowledge').find((c) => c.value === 'Ada lives by the quay.')!;
    engine.undoChange(chat, fact.eventId, fact.change);
    expect(feeling(story).knowledge).toEqual(['Ada bakes her own bread.']);

    expect(() => engine.undoChange(chat, first.eventId, first.change)).toThrow(/taken back already/);
    expect(() => engine.undoChange(chat, first.eventId, 'edge:nobody:you:affinity')).toThrow(/no longer in the story/);
    expectRebuildAgrees(story);
  });

  it('returns a set value to the one before, unless a later change set it again: then that one stands and the player is told so', async () => {
    const story = await openStory();
    const { engine, chat } = story;
    const opening = engine.chatState(chat)!.fictionTime;
    await exchange(story, '"Let us wait."', { minutesPassed: 40 });
    const afterWait = engine.chatState(chat)!.fictionTime;
    expect(afterWait).not.toBe(opening);
    engine.editState(chat, { type: 'chat_state' }, 'fictionTime', '1890-05-02T09:00:00');

    const [edit, step] = engine.valueHistory(chat, { type: 'chat_state' }, 'fictionTime');
    expect(edit).toMatchObject({ by: 'player', how: 'set', value: '1890-05-02T09:00:00' });
    expect(step).toMatchObject({ by: 'story', how: 'set', value: afterWait });
    // The story's step taken back: the player's later time stands, and the answer says so.
    expect(engine.undoChange(chat, step!.eventId, step!.change)).toEqual({ laterValueStands: true });
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-02T09:00:00');
    // The player's own edit taken back: the clock falls back past the undone step to the opening's time.
    expect(engine.undoChange(chat, edit!.eventId, edit!.change)).toEqual({ laterValueStands: false });
    expect(engine.chatState(chat)!.fictionTime).toBe(opening);
    expectRebuildAgrees(story);
  });

  it('follows rewind (and its undo) and a branch, like every event', async () => {
    const story = await openStory();
    const { engine, chat, db } = story;
    await exchange(story, '"Bread."', { feelings: { 'Mira -> Ada': { affinityDelta: 5 } } });
    const beforeUndo = engine.transcript(chat).turns.at(-1)!;
    await exchange(story, '"Boat."', { feelings: { 'Mira -> Ada': { affinityDelta: 10 } } });
    const later = engine.valueHistory(chat, edge(story), 'affinity')[0]!;
    const earlier = engine.valueHistory(chat, edge(story), 'affinity')[1]!;
    engine.undoChange(chat, earlier.eventId, earlier.change);
    expect(feeling(story).affinity).toBe(60);
    const afterUndo = engine.transcript(chat).turns.at(-1)!;
    await exchange(story, '"Sail?"', { feelings: { 'Mira -> Ada': { affinityDelta: 1 } } });
    expect(feeling(story).affinity).toBe(61);

    // Rewound to the last exchange: the undo (written before it) still holds.
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > afterUndo.seq)!.seq);
    expect(feeling(story).affinity).toBe(60);
    engine.undoRewind(chat);
    // Rewound to before the undo and the second exchange: the +5 is back, alone.
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > beforeUndo.seq)!.seq);
    expect(feeling(story).affinity).toBe(55);
    expect(engine.valueHistory(chat, edge(story), 'affinity').map((c) => [c.value, c.undone])).toEqual([[5, false]]);
    engine.undoRewind(chat);
    expect(feeling(story).affinity).toBe(61);
    expect(later.undone).toBe(false);
    expectRebuildAgrees(story);

    // A branch from the latest turn keeps the change taken back, and a rebuild of it agrees.
    const branch = engine.branchChat(chat, engine.transcript(chat).turns.at(-1)!.seq);
    const inBranch = engine.chatState(branch)!.edges.find((e) => e.source === story.bot && e.target === 'you')!;
    expect(inBranch.affinity).toBe(61);
    expect(engine.valueHistory(branch, edge(story), 'affinity').map((c) => c.undone)).toEqual([false, false, true]);
    const before = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(before);
  });

  it('undoes a change again after its first undo was rewound away, and a branch and a rebuild agree', async () => {
    const story = await openStory();
    const { engine, chat, db } = story;
    await exchange(story, '"Bread."', { feelings: { 'Mira -> Ada': { affinityDelta: 5 } } });
    const bread = engine.valueHistory(chat, edge(story), 'affinity')[0]!;
    const beforeUndo = engine.transcript(chat).turns.at(-1)!;
    await exchange(story, '"Boat."', { feelings: { 'Mira -> Ada': { affinityDelta: 10 } } });
    engine.undoChange(chat, bread.eventId, bread.change);
    expect(feeling(story).affinity).toBe(60);
    // The undo rewound away with the second exchange: the +5 is back.
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > beforeUndo.seq)!.seq);
    expect(feeling(story).affinity).toBe(55);
    // Taken back again: it goes again (its first undo's record, hidden, once kept the second from being written).
    engine.undoChange(chat, bread.eventId, bread.change);
    expect(feeling(story).affinity).toBe(50);
    expect(engine.valueHistory(chat, edge(story), 'affinity').map((c) => [c.value, c.undone])).toEqual([[5, true]]);
    expectRebuildAgrees(story);
    const branch = engine.branchChat(chat, engine.transcript(chat).turns.at(-1)!.seq);
    expect(engine.chatState(branch)!.edges.find((e) => e.source === story.bot && e.target === 'you')!.affinity).toBe(50);
    const before = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(before);
  });
});

describe('the changes, kept by chat number with their targets packed (migration 0062)', () => {
  it('are rewritten a third smaller, read the same, found through their key, and undo through the journal', async () => {
    const story = await openStory();
    const { engine, db, chat } = story;
    for (let i = 0; i < 12; i++) await exchange(story, `"Line ${i}."`, { feelings: { 'Mira -> Ada': { affinityDelta: 1 + (i % 3), newFacts: [`Ada said line ${i}.`] } } });
    engine.editState(chat, edge(story), 'trust', 80);
    const second = engine.valueHistory(chat, edge(story), 'affinity').at(-2)!;
    engine.undoChange(chat, second.eventId, second.change);
    const why = () => ['affinity', 'trust', 'knowledge'].map((field) => engine.valueHistory(chat, edge(story), field));
    const read = (db: Story['db']) => db.all('SELECT * FROM value_changes ORDER BY chat_id, target, field, seq, part');
    const [historyBefore, rowsBefore] = [why(), read(db)];
    expect(rowsBefore.length).toBeGreaterThan(30);

    undoMigrationsSince(db, 62);
    db.exec('VACUUM');
    const bytes = (table: string) => db.get<{ b: number }>('SELECT sum(payload) AS b FROM dbstat WHERE name = ?', [table])!.b;
    const bytesBefore = bytes('value_changes');
    const recordsBefore = db.get<{ n: number }>("SELECT count(*) AS n FROM projection_journal WHERE tbl = 'value_changes'")!.n;
    expect(recordsBefore).toBeGreaterThan(30);
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(read(db)).toEqual(rowsBefore);
    expect(['affinity', 'trust', 'knowledge'].map((field) => reopened.valueHistory(chat, edge(story), field))).toEqual(historyBefore);
    expect(bytes('value_change_rows')).toBeLessThan((2 / 3) * bytesBefore);
    // The journal's records name the rows' table and their chat by number.
    const records = db.all<{ tbl: string; key: string }>("SELECT tbl, key FROM projection_journal WHERE tbl LIKE 'value_change%'");
    expect(records).toHaveLength(recordsBefore);
    expect(records.every((r) => r.tbl === 'value_change_rows' && typeof JSON.parse(r.key).chat === 'number' && !('chat_id' in JSON.parse(r.key)))).toBe(true);
    // "Is it set again later?" reads a target's changes through the rows' key.
    const plan = db.all<{ detail: string }>(
      "EXPLAIN QUERY PLAN SELECT 1 FROM value_change_rows WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?) AND target = payload_packed(?) AND field = ? AND seq > ? AND undone = 0 AND how IN ('set', 'create') LIMIT 1",
      [chat, 'edge:x:you', 'trust', 0],
    );
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/SEARCH \w+ USING PRIMARY KEY \(chat=\? AND target=\? AND field=\? AND seq>\?\)/);

    // Taking a change back after the rewrite; then a rewind through the journal (records from before
    // the rewrite and after) is the same as replaying the chat, and its undo gives every change back.
    const fact = reopened.valueHistory(chat, edge(story), 'knowledge').find((c) => c.value === 'Ada said line 7.')!;
    reopened.undoChange(chat, fact.eventId, fact.change);
    expect(reopened.chatState(chat)!.edges.find((e) => e.source === story.bot && e.target === 'you')!.knowledge).not.toContain('Ada said line 7.');
    const historyNow = ['affinity', 'trust', 'knowledge'].map((field) => reopened.valueHistory(chat, edge(story), field));
    const third = reopened.transcript(chat).turns.find((t) => t.text === '"Line 2."')!.seq;
    reopened.rewind(chat, third);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    const rewound = reopened.valueHistory(chat, edge(story), 'knowledge');
    expect(rewound.map((c) => c.value)).toEqual(['Ada said line 1.', 'Ada said line 0.']);
    reopened.undoRewind(chat);
    expect(['affinity', 'trust', 'knowledge'].map((field) => reopened.valueHistory(chat, edge(story), field))).toEqual(historyNow);
  });
});

describe('the changes without a copy of their values (migration 0066)', () => {
  it('read each value from the event that made it, the same as the rows held, in fewer bytes, and undo through the journal', async () => {
    const story = await openStory();
    const { engine, db, chat } = story;
    for (let i = 0; i < 12; i++) await exchange(story, `"Line ${i}."`, { feelings: { 'Mira -> Ada': { affinityDelta: 1 + (i % 3), newFacts: [`Ada said line ${i}, about the lighthouse keeper's daughter.`] } } });
    engine.editState(chat, edge(story), 'trust', 80);
    const fields = ['affinity', 'trust', 'knowledge'];
    const why = (e: typeof engine) => fields.map((field) => e.valueHistory(chat, edge(story), field));
    const historyBefore = why(engine);
    expect(historyBefore[2]!.map((c) => c.value)).toContain("Ada said line 7, about the lighthouse keeper's daughter.");

    // The rows as 0062 to 0065 kept them, each with its value as JSON; a journal record holds one too.
    undoMigrationsSince(db, 66);
    db.exec('VACUUM');
    const bytes = () => db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name = 'value_change_rows'")!.b;
    const valuesBefore = db.all<{ value: string }>("SELECT value FROM value_change_rows WHERE field = 'knowledge'").map((r) => JSON.parse(r.value) as string);
    expect(valuesBefore).toContain("Ada said line 7, about the lighthouse keeper's daughter.");
    const bytesBefore = bytes();
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(db.all("SELECT name FROM pragma_table_info('value_change_rows') WHERE name = 'value'")).toEqual([]);
    expect(why(reopened)).toEqual(historyBefore);
    expect(bytes()).toBeLessThan(0.8 * bytesBefore);

    // A change taken back after the rewrite; a rewind through the journal (records from before the
    // rewrite and after) is the same as replaying the chat, and its undo gives every change back.
    const fact = reopened.valueHistory(chat, edge(story), 'knowledge').find((c) => c.value === "Ada said line 7, about the lighthouse keeper's daughter.")!;
    reopened.undoChange(chat, fact.eventId, fact.change);
    const historyNow = why(reopened);
    expect(historyNow[2]!.find((c) => c.eventId === fact.eventId)).toMatchObject({ undone: true, value: fact.value });
    const third = reopened.transcript(chat).turns.find((t) => t.text === '"Line 2."')!.seq;
    reopened.rewind(chat, third);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    reopened.undoRewind(chat);
    expect(why(reopened)).toEqual(historyNow);
  });
});

describe('what a character knows, kept by chat number with the pair as 16 bytes (migration 0063)', () => {
  it('is rewritten in its order at a third of the size, read the same, found through its key, and undoes through the journal', async () => {
    const story = await openStory();
    const { engine, db, chat } = story;
    for (let i = 0; i < 12; i++) await exchange(story, `"Line ${i}."`, { feelings: { 'Mira -> Ada': { affinityDelta: 1, newFacts: [`Ada said line ${i}.`, `Ada likes the number ${i}.`] } } });
    const knowledge = (e: typeof engine) => e.chatState(chat)!.edges.find((x) => x.source === story.bot && x.target === 'you')!.knowledge;
    const before = knowledge(engine);
    expect(before).toHaveLength(24);
    const rowsBefore = db.all('SELECT * FROM edge_facts ORDER BY chat_id, source, target, fact_key');

    undoMigrationsSince(db, 63);
    db.exec('VACUUM');
    const bytes = (names: string[]) => db.get<{ b: number }>(`SELECT sum(payload) AS b FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`, names)!.b;
    const bytesBefore = bytes(['edge_facts', 'sqlite_autoindex_edge_facts_1']);
    const recordsBefore = db.get<{ n: number }>("SELECT count(*) AS n FROM projection_journal WHERE tbl = 'edge_facts'")!.n;
    expect(recordsBefore).toBe(24);
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(db.all('SELECT * FROM edge_facts ORDER BY chat_id, source, target, fact_key')).toEqual(rowsBefore);
    expect(knowledge(reopened)).toEqual(before);
    expect(db.all("SELECT typeof(source) AS s, typeof(target) AS t FROM edge_fact_rows GROUP BY 1, 2")).toEqual([{ s: 'blob', t: 'text' }]);
    expect(bytes(['edge_fact_rows', 'sqlite_autoindex_edge_fact_rows_1'])).toBeLessThan((2 / 3) * bytesBefore);
    const records = db.all<{ tbl: string; key: string }>("SELECT tbl, key FROM projection_journal WHERE tbl LIKE 'edge_fact%'");
    expect(records.length === recordsBefore && records.every((r) => r.tbl === 'edge_fact_rows' && typeof JSON.parse(r.key).chat === 'number')).toBe(true);
    // What the analysis checks before adding a fact reads the pair's facts through the key's index.
    const plan = db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT fact_key FROM edge_fact_rows WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?) AND source = id_key(?) AND target = id_key(?)', [chat, story.bot, 'you']);
    expect(plan.map((p) => p.detail).join('\n')).toContain('sqlite_autoindex_edge_fact_rows_1');

    // A fact added and one edited by hand after the rewrite; a rewind through the journal is the same
    // as replaying the chat, and its undo gives every fact back, in order.
    await exchange({ ...story, engine: reopened }, '"One more."', { feelings: { 'Mira -> Ada': { newFacts: ['Ada sails at dawn.'] } } });
    reopened.editState(chat, edge(story), 'knowledge', [...knowledge(reopened).slice(1), 'Ada hates fog.']);
    const now = knowledge(reopened);
    expect(now.slice(-2)).toEqual(['Ada sails at dawn.', 'Ada hates fog.']);
    reopened.rewind(chat, reopened.transcript(chat).turns.find((t) => t.text === '"Line 2."')!.seq);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    expect(knowledge(reopened)).toEqual(before.slice(0, 4));
    reopened.undoRewind(chat);
    expect(knowledge(reopened)).toEqual(now);
  });
});
