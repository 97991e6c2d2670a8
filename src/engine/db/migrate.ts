import type { Db } from './port.ts';
import { reportSteps } from './step-progress.ts';

/** One forward-only migration file, `NNNN_name.sql`. */
export interface Migration {
  name: string;
  sql: string;
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly file: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'MigrationError';
  }
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;
/** A migration that copies whole tables says which, on a line of its own: `-- rewrites: events`. */
const REWRITES = /^-- rewrites: ([a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*)$/m;
/**
 * Steps a table's copy takes, per row of the table: 110 on migration 0052's copy of a 20,000-event
 * log and the building of its six indexes (counted every `STEPS_PER_CALL`), taken a little over so
 * the bar does not wait at its end. Steps follow rows, not bytes: a long payload is one step.
 */
const STEPS_PER_ROW = 120;

/** The tables a migration copies whole (its `-- rewrites:` line). */
export function tablesRewritten(migration: Migration): string[] {
  return REWRITES.exec(migration.sql)?.[1]!.split(', ') ?? [];
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Applies the pending migrations. Every check happens before anything is written, and all pending
 * files run inside one outer transaction with a savepoint each: a failure names the file and leaves
 * the database exactly as it was before start-up, never half-migrated.
 */
export async function migrate(db: Db, migrations: readonly Migration[], now: () => number, onProgress?: (fraction: number) => void): Promise<number[]> {
  const ordered = [...migrations].sort((a, b) => a.name.localeCompare(b.name));
  const checked = await Promise.all(
    ordered.map(async (m) => {
      const match = FILE_NAME.exec(m.name);
      if (!match) throw new MigrationError(`Migration file name "${m.name}" must look like 0001_name.sql`, m.name);
      return { ...m, version: Number(match[1]), checksum: await sha256Hex(m.sql) };
    }),
  );
  checked.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new MigrationError(`Migration ${m.name} is out of sequence: expected version ${i + 1}`, m.name);
    }
  });

  const hasMeta = db.get(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'meta'`) !== undefined;
  const applied = hasMeta ? db.all<AppliedRow>('SELECT version, name, checksum FROM meta ORDER BY version') : [];
  for (const row of applied) {
    const file = checked[row.version - 1];
    if (!file) {
      throw new MigrationError(
        `The database was migrated by a newer version of the app (it has ${row.name}, which this build lacks). Update the app.`,
        row.name,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `Migration ${file.name} was edited after it was applied (checksum ${row.checksum.slice(0, 12)} became ${file.checksum.slice(0, 12)}). Add a new migration instead.`,
        file.name,
      );
    }
  }

  const pending = checked.slice(applied.length);
  if (pending.length === 0) return [];
  const stopCounting = onProgress ? countProgress(db, pending, onProgress) : () => {};
  try {
    apply(db, pending, now);
  } finally {
    stopCounting();
  }
  return pending.map((m) => m.version);
}

/**
 * Says how far the pending migrations have come while they copy tables: 0 before, fractions under
 * 1 as SQLite counts steps (estimated from the rows of the tables they copy), 1 after. Nothing is
 * said when none copies a table: the others take a moment.
 */
function countProgress(db: Db, pending: readonly Migration[], onProgress: (fraction: number) => void): () => void {
  const tables = pending.flatMap(tablesRewritten);
  const existing = new Set(db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => row.name));
  // The names are the `-- rewrites:` line's, which allows nothing but a table name's letters.
  const rowsOf = (table: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`)!.n;
  const expected = tables.filter((table) => existing.has(table)).reduce((sum, table) => sum + rowsOf(table), 0) * STEPS_PER_ROW;
  return expected > 0 ? reportSteps(db, expected, onProgress) : () => {};
}

function apply(db: Db, pending: readonly (Migration & { version: number; checksum: string })[], now: () => number): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS meta (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      checksum TEXT NOT NULL,
      applied_ts INTEGER NOT NULL
    ) STRICT`);
    for (const m of pending) {
      try {
        db.transaction(() => {
          db.exec(m.sql);
          db.run('INSERT INTO meta (version, name, checksum, applied_ts) VALUES (?, ?, ?, ?)', [
            m.version,
            m.name,
            m.checksum,
            now(),
          ]);
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new MigrationError(`Migration ${m.name} failed: ${reason}`, m.name, error);
      }
    }
  });
}
