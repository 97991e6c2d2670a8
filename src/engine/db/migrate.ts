import type { Db } from './port.ts';

/** One forward-only migration file, `NNNN_name.sql`. */
export interface Migration {
  name: string;
  sql: string;
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Applies the pending migrations. Every check happens before anything is written, and all pending
 * files run inside one outer transaction with a savepoint each: a failure names the file and leaves
 * the database exactly as it was before start-up, never half-migrated.
 */
export async function migrate(db: Db, migrations: readonly Migration[], now: () => number): Promise<number[]> {
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
        throw new MigrationError(`Migration ${m.name} failed: ${reason}`, m.name);
      }
    }
  });
  return pending.map((m) => m.version);
}
