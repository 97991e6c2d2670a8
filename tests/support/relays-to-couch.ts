import { afterAll, afterEach, beforeAll } from 'vitest';
import { freshDatabaseName, startCouch, type CouchServer } from './couch-server.ts';
import { startRelay, type RunningRelay } from './relay-harness.ts';

/**
 * One CouchDB-compatible test server for a file, and the relays its tests start in front of it
 * (each on a fresh database unless told), closed after each test.
 */
export function relaysToCouch() {
  let couch: CouchServer;
  const relays: RunningRelay[] = [];
  beforeAll(async () => {
    couch = await startCouch();
  });
  afterAll(() => couch.close());
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.close()));
  });
  return {
    couch: () => couch,
    async relay(env: Record<string, string> = {}, options: Parameters<typeof startRelay>[1] = {}): Promise<RunningRelay> {
      const started = await startRelay({ SYNC_COUCHDB_URL: couch.url, SYNC_DATABASE: freshDatabaseName(), ...env }, options);
      relays.push(started);
      return started;
    },
  };
}
