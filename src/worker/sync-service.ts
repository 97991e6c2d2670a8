import { couchDatabase, relayGenerations, type Fetch } from '../engine/sync/couch.ts';
import { SyncError } from '../engine/sync/sync-error.ts';

/**
 * Sync runs through the relay's /sync/ path with this tab's relay token; the relay holds the
 * server's credentials. Before its first call it asks the relay's health whether there is a sync
 * server at all: a relay without one is asked that once per start, instead of being sent a sync
 * request it can only refuse (404) on every page load.
 */
export function syncThroughRelay(relayToken: () => string) {
  const remote = new URL('/sync', self.location.origin).href;
  const withToken: Fetch = (url, init) => {
    const token = relayToken();
    return fetch(url, { ...init, headers: { ...init?.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  };
  const couch = couchDatabase(remote, withToken);
  const prepare = couch.prepare;
  couch.prepare = async () => {
    const health = await withToken(new URL('/api/health', self.location.origin).href)
      .then((response) => (response.ok ? (response.json() as Promise<{ sync?: boolean }>) : null))
      .catch(() => null);
    if (health?.sync === false) {
      throw new SyncError('This relay has no sync server: set SYNC_COUCHDB_URL (and SYNC_DATABASE) where the relay runs.', 404);
    }
    return prepare();
  };
  return { couch, remote, generations: relayGenerations(new URL('/api/sync', self.location.origin).href, remote, withToken) };
}
