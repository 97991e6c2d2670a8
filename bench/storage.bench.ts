import { randomBytes } from 'node:crypto';
import { wrapSqlite } from '../src/engine/db/sqlite-db.ts';
import { indexPendingSearch, indexPendingTranscript } from '../src/engine/queries/search-index.ts';
import { openEngine } from '../tests/support/engine.ts';
import { loadSqlite, readMigrations } from '../tests/support/sqlite.ts';
import { benchStoryBackup } from './chat.bench.ts';
import { fmt, printTable } from './table.ts';

const TURNS = Number(process.env.BENCH_STORAGE_TURNS ?? 10_000);
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
    const sqlite = await loadSqlite();
    const raw = new sqlite.oo1.DB(':memory:', 'c');
    raw.exec('PRAGMA page_size = 1024');
    const db = wrapSqlite(sqlite, raw);
    let now = Date.UTC(2026, 0, 1);
    const engine = await openEngine({ db, now: () => (now += 1000), randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
    engine.importLog(backup);
    // The search indexes fill in the quiet after a restore; all of them, as at rest.
    while (indexPendingSearch(db, 5_000) > 0) {}
    indexPendingTranscript(db, Number.MAX_SAFE_INTEGER);
    raw.exec('VACUUM');
    const total = (raw.selectValue('PRAGMA page_count') as number) * 1024;
    const parts = raw.selectObjects('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12') as { name: string; bytes: number }[];
    const label = `${fmt(TURNS)} turns, ${analysed ? 'each reply analysed' : 'the transcript alone'}`;
    rows.push([`${label}: database / text of the messages (target 4x, with the files beside it)`, `${fmt(total / MB, 2)} MB / ${fmt(textBytes / MB, 2)} MB = ${fmt(total / textBytes, 2)}x`]);
    rows.push([`${label}: where its bytes are (MB)`, parts.map((p) => `${p.name} ${fmt(p.bytes / MB, 2)}`).join(', ')]);
    raw.close();
  }
  printTable('Storage (Node, sqlite-wasm, 1 KiB pages, the bench story restored and VACUUMed)', rows);
}
