import { randomBytes } from 'node:crypto';
import type { Database } from '@sqlite.org/sqlite-wasm';
import type { Db } from '../src/engine/db/port.ts';
import { wrapSqlite } from '../src/engine/db/sqlite-db.ts';
import { indexPendingSearch, indexPendingTranscript } from '../src/engine/queries/search-index.ts';
import { openEngine } from '../tests/support/engine.ts';
import { loadSqlite, readMigrations } from '../tests/support/sqlite.ts';
import { benchStoryBackup } from './chat.bench.ts';
import type { LlmClient } from '../src/engine/llm/port.ts';
import type { CompletionRequest } from '../relay/request-body.ts';
import { demoReply } from '../relay/demo-model.ts';
import { draft, kickoffInput } from '../tests/support/fixtures.ts';
import { testLeader } from '../tests/support/leader.ts';
import { SESSIONS } from './long-conversation.data.ts';
import { fmt, printTable } from './table.ts';

const TURNS = Number(process.env.BENCH_STORAGE_TURNS ?? 10_000);
/** Exchanges played through the leader: past the journal's 2,000 events a chat, as a long story is. */
const PLAYED = Number(process.env.BENCH_STORAGE_PLAYED ?? 400);
const MB = 1e6;

/**
 * Where a story's bytes are, in Node on the app's own schema and page size (1 KiB), restored from
 * a backup and VACUUMed: the database as the browser keeps it, less the room a long play leaves
 * free and the files beside it (the daily backups, the WAL; `npm run bench -- disk` reads those).
 * Two stories of the same turns: the transcript alone (what the disk bench restores), and each
 * reply analysed as in play (a feeling with a fact, and a memory), which the transcript alone hides.
 */
export async function benchStorage(): Promise<void> {
  const rows: [string, string][] = [];
  for (const analysed of [false, true]) {
    const { backup, textBytes } = await benchStoryBackup(TURNS, { analysed });
    let now = Date.UTC(2026, 0, 1);
    const { raw, db, engine } = await benchDatabase(() => (now += 1000));
    engine.importLog(backup);
    const { total, parts } = atRest(raw, db, 12);
    const label = `${fmt(TURNS)} turns, ${analysed ? 'each reply analysed' : 'the transcript alone'}`;
    rows.push([`${label}: database / text of the messages (target 4x, with the files beside it)`, `${fmt(total / MB, 2)} MB / ${fmt(textBytes / MB, 2)} MB = ${fmt(total / textBytes, 2)}x`]);
    rows.push([`${label}: where its bytes are (MB)`, parts.map((p) => `${p.name} ${fmt(p.bytes / MB, 2)}`).join(', ')]);
    raw.close();
  }
  rows.push(...(await playedStorage(PLAYED)));
  printTable('Storage (Node, sqlite-wasm, 1 KiB pages, the bench story restored and VACUUMed)', rows);
}

/**
 * A story played as a player plays it, which a restored one is not: every Send through the leader
 * (the prompt built, the reply streamed with its "Why this reply?" report, the analysis the demo
 * model answers applied), the model scripted. The words are the long conversation's, run together
 * to the lengths of the restored story's turns (a player's line of ~120 bytes, a reply of ~290).
 */
async function playedStorage(exchanges: number): Promise<[string, string][]> {
  const lines = SESSIONS.flatMap((s) => s.exchanges);
  const at = (k: number) => lines[k % lines.length]!;
  const said = (k: number) => `${at(k)[0]} ${at(k + 1)[0]}`;
  const reply = (k: number) => [0, 1, 2, 3, 4, 5].map((i) => at(k + i)[1]).join(' ');
  let k = 0;
  const llm: LlmClient = {
    complete: async (messages, options) => ({
      text: options.json ? demoReply({ model: options.model, messages, response_format: { type: 'json_object' } } as unknown as CompletionRequest) : 'What happened, in a line.',
      usage: null,
      model: options.model,
      finishReason: 'stop',
    }),
    async *stream() {
      yield { type: 'delta', text: reply(k) };
      yield { type: 'finish', reason: 'stop' };
      yield { type: 'usage', usage: { promptTokens: 2_400, completionTokens: 90 } };
    },
  };
  const { raw, db, engine } = await benchDatabase(Date.now);
  const { leader, client } = testLeader(engine, llm);
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira', persona: 'Mira keeps a second-hand bookshop by the canal and remembers every customer.' })]);
  const chat = engine.startChat(bot, kickoffInput());
  let textBytes = 0;
  for (k = 0; k < exchanges; k++) {
    await client.sendTurn(chat, said(k));
    await leader.idle();
    textBytes += Buffer.byteLength(said(k)) + Buffer.byteLength(reply(k));
  }
  leader.stop();
  const { total, parts } = atRest(raw, db, 8);
  const kinds = raw.selectObjects('SELECT kind, count(*) AS n, sum(length(payload)) AS bytes FROM event_rows GROUP BY kind ORDER BY bytes DESC LIMIT 5') as { kind: string; n: number; bytes: number }[];
  raw.close();
  const label = `${fmt(exchanges)} exchanges played (${fmt(exchanges * 2)} messages)`;
  return [
    [`${label}: database / text of the messages`, `${fmt(total / MB, 2)} MB / ${fmt(textBytes / MB, 3)} MB = ${fmt(total / textBytes, 1)}x (${fmt(total / exchanges / 1024, 1)} KB an exchange)`],
    [`${label}: where its bytes are (MB)`, parts.map((p) => `${p.name} ${fmt(p.bytes / MB, 2)}`).join(', ')],
    [`${label}: the log's payloads by kind, bytes an event (packed)`, kinds.map((r) => `${r.kind} ${fmt(r.bytes / r.n)} (${fmt(r.n)})`).join(', ')],
  ];
}

/** A database in memory on the app's page size, migrated, with an engine over it. */
async function benchDatabase(now: () => number) {
  const sqlite = await loadSqlite();
  const raw = new sqlite.oo1.DB(':memory:', 'c');
  raw.exec('PRAGMA page_size = 1024');
  const db = wrapSqlite(sqlite, raw);
  const engine = await openEngine({ db, now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
  return { raw, db, engine };
}

/** The database as it rests: its search indexes filled (as in the quiet after play), VACUUMed; its bytes, and the largest B-trees. */
function atRest(raw: Database, db: Db, largest: number): { total: number; parts: { name: string; bytes: number }[] } {
  while (indexPendingSearch(db, 5_000) > 0) {}
  indexPendingTranscript(db, Number.MAX_SAFE_INTEGER);
  raw.exec('VACUUM');
  const total = (raw.selectValue('PRAGMA page_count') as number) * 1024;
  const parts = raw.selectObjects(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT ${largest}`) as { name: string; bytes: number }[];
  return { total, parts };
}
