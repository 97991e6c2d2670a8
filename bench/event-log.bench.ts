import { performance } from 'node:perf_hooks';
import type { Engine } from '../tests/support/engine.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { draft } from '../tests/support/fixtures.ts';
import type { Db } from '../src/engine/db/port.ts';
import { migrate } from '../src/engine/db/migrate.ts';
import { openMemoryDb, openTestEngine, readMigrations } from '../tests/support/sqlite.ts';
import { fmt, median, printTable } from './table.ts';
import { checkBackupFile, gzipLines, restoreBackupFile } from '../src/worker/backup-streams.ts';

const TARGET_EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const BOTS = 20;
const CHATS = 50;
const WORDS = 'storm harbour lantern map oath rope sail knife letter tavern secret promise debt brother'.split(' ');

/** A deterministic story mix: mostly turns with their analysis results, some world changes. */
export function* commands(engine: Engine): Generator<EventDraft[]> {
  let rand = 42;
  const next = () => (rand = (rand * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const bots = Array.from({ length: BOTS }, () => engine.newId());
  const chats = Array.from({ length: CHATS }, (_, i) => ({ id: engine.newId(), bot: bots[i % BOTS]! }));
  yield [draft.you(), ...bots.map((b) => draft.bot(b))];
  for (const c of chats) yield [draft.chat(c.id, c.bot)];
  for (let turn = 0; ; turn++) {
    const c = chats[Math.floor(next() * CHATS)]!;
    const turnId = engine.newId();
    const cmd: EventDraft[] = [
      draft.userTurn(c.id, engine.newId(), `"${words(12)}" *${words(6)}*`),
      draft.assistantStarted(c.id, turnId, c.bot),
      { ...draft.assistantTurn(c.id, turnId, c.bot, words(120)), causeDraft: 1 },
      { ...draft.edge(c.id, c.bot, 'you', { affinityDelta: Math.round(next() * 10 - 5), facts: [words(4)] }), causeDraft: 2 },
      { ...draft.edge(c.id, 'you', c.bot, { trustDelta: Math.round(next() * 6 - 3) }), causeDraft: 2 },
      { ...draft.memory(c.id, engine.newId(), c.bot, { summary: words(25), significance: Math.floor(next() * 4) }), causeDraft: 2 },
      { kind: 'clock_advanced', chatId: c.id, payload: { minutes: 5, fictionTime: '1890-05-01T20:05:00' }, causeDraft: 2 },
    ];
    if (turn % 10 === 0) {
      cmd.push({
        kind: 'activity_change',
        chatId: c.id,
        payload: {
          entity: c.bot,
          containerId: null,
          slot: 'deck',
          posture: 'standing',
          action: { verb: words(1), interruptible: true, requiredAttention: 'low', expectedMinutes: 10 },
          attention: 'you',
          holding: [],
          status: 'present',
        },
      });
    }
    yield cmd;
  }
}

export async function benchEventLog(): Promise<void> {
  const { engine, db } = await openTestEngine({ now: Date.now });
  let events = 0;
  let commandsRun = 0;
  const started = performance.now();
  for (const cmd of commands(engine)) {
    engine.append(cmd);
    events += cmd.length;
    commandsRun++;
    if (events >= TARGET_EVENTS) break;
  }
  const appendMs = performance.now() - started;
  // The transcript's search index is filled after the writes (migration 0024): its cost, apart.
  const waiting = db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
  const indexStarted = performance.now();
  while (engine.indexSearch() > 0);
  const indexMs = performance.now() - indexStarted;

  const rebuildTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    engine.rebuild();
    rebuildTimes.push(performance.now() - t);
  }

  const longest = db.get<{ chat_id: string; n: number }>(
    'SELECT chat_id, count(*) AS n FROM transcript GROUP BY chat_id ORDER BY n DESC LIMIT 1',
  )!;
  const chatEvents = db.get<{ n: number }>('SELECT count(*) AS n FROM events WHERE chat_id = ?', [longest.chat_id])!.n;

  // Regenerate the newest reply of the longest chat: supersede its chain, rebuild that chat alone.
  const regenerateTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const last = db.get<{ id: string }>(
      `SELECT e.id FROM events e JOIN transcript t ON t.seq = e.seq
       WHERE t.chat_id = ? AND t.role = 'assistant' ORDER BY t.seq DESC LIMIT 1`,
      [longest.chat_id],
    )!;
    const bot = db.get<{ bot_id: string }>('SELECT bot_id FROM chats WHERE id = ?', [longest.chat_id])!.bot_id;
    const retry = draft.assistantStarted(longest.chat_id, engine.newId(), bot);
    const t = performance.now();
    engine.append([{ ...retry, payload: { ...retry.payload, regenerateOf: last.id } } as typeof retry]);
    regenerateTimes.push(performance.now() - t);
  }
  const pageTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    engine.transcript(longest.chat_id, { limit: 50 });
    pageTimes.push(performance.now() - t);
  }
  const listTimes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    engine.listChats();
    listTimes.push(performance.now() - t);
  }
  const count = (table: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)!.n;
  const migrateMs = await timeMigrationFromV1(db);

  // The backup file (format 3) of this log: written a page at a time, checked, restored.
  let t = performance.now();
  const file = new Blob([await new Response(gzipLines(engine.backupLines())).arrayBuffer()]);
  const writeMs = performance.now() - t;
  t = performance.now();
  await checkBackupFile(engine, file);
  const checkMs = performance.now() - t;
  const target = await openTestEngine({ now: Date.now });
  t = performance.now();
  await restoreBackupFile(target.engine, file);
  const restoreMs = performance.now() - t;

  printTable(`Event log (Node ${process.version}, sqlite-wasm in memory; OPFS numbers come from the browser bench)`, [
    ['events appended', fmt(events)],
    ['commands (one transaction each)', fmt(commandsRun)],
    ['append + project, events/s', fmt(events / (appendMs / 1000))],
    ['append + project, commands/s', fmt(commandsRun / (appendMs / 1000))],
    [`  the transcript's search index caught up after them (${fmt(waiting)} turns, batches of 500)`, `${fmt(indexMs)} ms (${fmt(waiting / (indexMs / 1000))} turns/s)`],
    ['full rebuild, median of 3', `${fmt(median(rebuildTimes))} ms`],
    ['rebuild, events/s', fmt(events / (median(rebuildTimes) / 1000))],
    [`regenerate in a chat of ${fmt(chatEvents)} events (chat-scoped rebuild), median`, `${fmt(median(regenerateTimes))} ms`],
    ['projected: transcript rows', fmt(count('transcript'))],
    ['projected: memories (FTS indexed)', fmt(count('memories'))],
    ['projected: edges', fmt(count('edges'))],
    [`transcript page of 50 (chat of ${fmt(longest.n)} turns), median`, `${fmt(median(pageTimes), 2)} ms`],
    [`list ${CHATS} chats with snippets, median`, `${fmt(median(listTimes), 2)} ms`],
    [`migrate this log from the v1 shape (0006), once`, `${fmt(migrateMs)} ms`],
    ['backup file of the log (format 3, gzip): write / size', `${fmt(writeMs)} ms / ${fmt(file.size / 1e6, 1)} MB`],
    ['  check it through (every line, checksum)', `${fmt(checkMs)} ms`],
    ['  restore it into a new database (check, stage, swap, rebuild)', `${fmt(restoreMs)} ms`],
  ]);
}

/**
 * The same log in the first shape (seq references, marker columns, a regenerate every 50 replies),
 * in a database at schema version 5; returns how long migration 0006 takes on it.
 */
async function timeMigrationFromV1(source: Db): Promise<number> {
  const db = await openMemoryDb();
  const all = readMigrations();
  await migrate(db, all.slice(0, 5), Date.now);
  const rows = source.all<{ seq: number; id: string; ts: number; kind: string; chat_id: string | null; payload: string; cause: number | null }>(
    'SELECT e.seq, e.id, e.ts, e.kind, e.chat_id, e.payload, c.seq AS cause FROM events e LEFT JOIN events c ON c.event_key = e.cause_key ORDER BY e.seq',
  );
  db.transaction(() => {
    let replies = 0;
    for (const r of rows) {
      db.run('INSERT INTO events (seq, id, ts, kind, chat_id, payload, cause_seq) VALUES (?, ?, ?, ?, ?, ?, ?)', [r.seq, r.id, r.ts, r.kind, r.chat_id, r.payload, r.cause]);
      if (r.kind === 'assistant_turn_started' && ++replies % 50 === 0) {
        db.run('UPDATE events SET superseded_by = ? WHERE seq = ?', [r.seq, r.seq - 7 > 0 ? r.seq - 7 : r.seq]);
      }
    }
  });
  const t = performance.now();
  await migrate(db, all, Date.now);
  return performance.now() - t;
}
