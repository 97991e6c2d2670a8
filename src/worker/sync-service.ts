import { couchDatabase, type Fetch } from '../engine/sync/couch.ts';

/**
 * Sync runs through the relay's /sync/ path with this tab's relay token; the relay holds the
 * server's credentials. A relay without a sync server answers 404, and sync says so.
 */
export function syncThroughRelay(relayToken: () => string) {
  const remote = new URL('/sync', self.location.origin).href;
  const withToken: Fetch = (url, init) => {
    const token = relayToken();
    return fetch(url, { ...init, headers: { ...init?.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  };
  return { couch: couchDatabase(remote, withToken), remote };
}
