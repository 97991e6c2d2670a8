import { performance } from 'node:perf_hooks';
import type { Engine } from '../src/engine/engine.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { fmt, median, printTable } from './table.ts';

const TARGET_EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const BOTS = 20;
const CHATS = 50;
const WORDS = 'storm harbour lantern map oath rope sail knife letter tavern secret promise debt brother'.split(' ');

/** A deterministic story mix: mostly turns with their analysis results, some world changes. */
function* commands(engine: Engine): Generator<EventDraft[]> {
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
    const last = db.get<{ seq: number }>(
      "SELECT max(seq) AS seq FROM events WHERE chat_id = ? AND kind = 'assistant_turn_started' AND superseded_by IS NULL",
      [longest.chat_id],
    )!;
    const bot = db.get<{ bot_id: string }>('SELECT bot_id FROM chats WHERE id = ?', [longest.chat_id])!.bot_id;
    const t = performance.now();
    const [retry] = engine.append([draft.assistantStarted(longest.chat_id, engine.newId(), bot)]);
    engine.supersede(last.seq, retry!.seq);
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

  printTable(`Event log (Node ${process.version}, sqlite-wasm in memory; OPFS numbers come from the browser bench)`, [
    ['events appended', fmt(events)],
    ['commands (one transaction each)', fmt(commandsRun)],
    ['append + project, events/s', fmt(events / (appendMs / 1000))],
    ['append + project, commands/s', fmt(commandsRun / (appendMs / 1000))],
    ['full rebuild, median of 3', `${fmt(median(rebuildTimes))} ms`],
    ['rebuild, events/s', fmt(events / (median(rebuildTimes) / 1000))],
    [`regenerate in a chat of ${fmt(chatEvents)} events (chat-scoped rebuild), median`, `${fmt(median(regenerateTimes))} ms`],
    ['projected: transcript rows', fmt(count('transcript'))],
    ['projected: memories (FTS indexed)', fmt(count('memories'))],
    ['projected: edges', fmt(count('edges'))],
    [`transcript page of 50 (chat of ${fmt(longest.n)} turns), median`, `${fmt(median(pageTimes), 2)} ms`],
    [`list ${CHATS} chats with snippets, median`, `${fmt(median(listTimes), 2)} ms`],
  ]);
}
