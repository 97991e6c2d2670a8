import type { Migration } from '../engine/db/migrate.ts';

/** The migration files, bundled as text at build time. */
const files = import.meta.glob<string>('../../migrations/*.sql', { query: '?raw', import: 'default', eager: true });

export const MIGRATIONS: Migration[] = Object.entries(files)
  .map(([path, sql]) => ({ name: path.slice(path.lastIndexOf('/') + 1), sql }))
  .sort((a, b) => a.name.localeCompare(b.name));
