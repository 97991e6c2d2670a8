import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

const require = createRequire(import.meta.url);

export interface CouchServer {
  /** The server's root, without credentials; a database is `${url}/${name}`. */
  url: string;
  /** `fetch` with the server's credentials added (fetch refuses a URL that carries them). */
  fetch: typeof fetch;
  close(): Promise<void>;
}

function withCredentials(root: string): { url: string; fetch: typeof fetch } {
  const parsed = new URL(root);
  const authorization = parsed.username ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}` : null;
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.href.replace(/\/+$/, ''),
    fetch: (input, init) => fetch(input, authorization ? { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), authorization } } : init),
  };
}

let databases = 0;
let pouch: unknown;
/** A database name no other test in this process has used (the memory adapter's store is per process). */
export const freshDatabaseName = () => `rpe-test-${process.pid}-${++databases}`;

/**
 * A CouchDB-compatible server for tests: express-pouchdb (the HTTP layer of pouchdb-server) over
 * in-memory PouchDB, on a free loopback port. It speaks CouchDB's HTTP and replication protocol,
 * `validate_doc_update` included. With `SYNC_COUCHDB_URL` set (a real CouchDB, e.g. in a
 * container), tests use that server instead.
 */
export async function startCouch(
  options: {
    credentials?: { user: string; password: string };
    /** Runs before each request is answered: a test holds some back (a slow network) until it lets them go. */
    gate?: (request: { method: string; url: string }) => Promise<void>;
    /** Keeps the databases on disk here (LevelDB, as pouchdb-server does) instead of in memory: for the bench. */
    directory?: string;
  } = {},
): Promise<CouchServer> {
  const real = process.env.SYNC_COUCHDB_URL;
  if (real && !options.credentials && !options.gate && !options.directory) return { ...withCredentials(real), close: async () => {} };
  type Handler = (req: { headers: Record<string, string | undefined> }, res: { status(code: number): { json(body: unknown): void } }, next: () => void) => void;
  const express = require('express') as () => { use: (path: string, handler: unknown) => void; listen: (port: number, host: string, ready: () => void) => Server };
  // Plugins register on pouchdb-core's one constructor: once per process.
  pouch ??= require('pouchdb-core').plugin(require('pouchdb-adapter-memory')).plugin(require('pouchdb-mapreduce')).plugin(require('pouchdb-replication'));
  const PouchDB = pouch as { defaults(options: object): unknown; plugin(plugin: unknown): unknown; adapters: Record<string, unknown> };
  if (options.directory && !PouchDB.adapters.leveldb) PouchDB.plugin(require('pouchdb-adapter-leveldb'));
  const expressPouchdb = require('express-pouchdb') as (pouch: unknown, options: object) => unknown;
  const app = express();
  if (options.credentials) {
    // As a CouchDB with an admin: every request must carry the account's Basic credentials.
    const expected = `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;
    const requireLogin: Handler = (req, res, next) => (req.headers.authorization === expected ? next() : res.status(401).json({ error: 'unauthorized', reason: 'Name or password is incorrect.' }));
    app.use('/', requireLogin);
  }
  if (options.gate) {
    const gate = options.gate;
    app.use('/', ((req: { method: string; url: string }, _res: unknown, next: () => void) => void gate({ method: req.method, url: req.url }).then(next)) as unknown);
  }
  app.use('/', expressPouchdb(PouchDB.defaults(options.directory ? { adapter: 'leveldb', prefix: `${options.directory.replace(/\/+$/, '')}/` } : { adapter: 'memory' }), { mode: 'minimumForPouchDB', overrideMode: { include: ['validation'] }, logPath: '/dev/null' }));
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fetch,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
