import { ConfigError } from './config-error.ts';

/** The CouchDB database this relay syncs through, with the credentials it keeps to itself. */
export interface SyncTarget {
  /** The database's URL, without credentials. */
  database: string;
  /** `Basic ...` for the server, or null when it needs none. */
  authorization: string | null;
  /** The password, to scrub from anything that leaves the relay. */
  password: string;
}

/** Reads `SYNC_COUCHDB_URL` (http(s)://user:password@host:port) and `SYNC_DATABASE`; null when sync is not set up. */
export function loadSyncTarget(env: Record<string, string | undefined>): SyncTarget | null {
  const raw = env.SYNC_COUCHDB_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SYNC_COUCHDB_URL must be a URL such as http://admin:password@127.0.0.1:5984');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`SYNC_COUCHDB_URL must be http or https (got "${url.protocol}")`);
  const name = env.SYNC_DATABASE?.trim() || 'roleplay-engine';
  // CouchDB's own rule for database names.
  if (!/^[a-z][a-z0-9_$()+/-]*$/.test(name)) throw new ConfigError(`SYNC_DATABASE must be a CouchDB database name: lowercase, starting with a letter (got "${name}")`);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return {
    database: `${url.href.replace(/\/+$/, '')}/${encodeURIComponent(name)}`,
    authorization: user ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : null,
    password,
  };
}
