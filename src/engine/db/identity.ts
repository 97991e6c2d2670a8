import type { Db } from './port.ts';

/** The database's id, made on first open. `created` is true only on that first open. */
export function identify(db: Db, newId: () => string, now: () => number): { dbId: string; created: boolean } {
  return db.transaction(() => {
    const existing = db.get<{ id: string }>('SELECT id FROM database_identity LIMIT 1');
    if (existing) return { dbId: existing.id, created: false };
    const dbId = newId();
    db.run('INSERT INTO database_identity (id, created_ts) VALUES (?, ?)', [dbId, now()]);
    return { dbId, created: true };
  });
}
