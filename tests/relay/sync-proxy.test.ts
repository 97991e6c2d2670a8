import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../relay/config.ts';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { VALIDATION_DESIGN } from '../../src/engine/sync/validation-design.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import { startCouch, type CouchServer } from '../support/couch-server.ts';
import { canonicalProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { makeDist, startRelay, type RunningRelay } from '../support/relay-harness.ts';
import { openTestEngine } from '../support/sqlite.ts';

const USER = 'sync-admin';
const PASSWORD = 'couch-pass-0123456789SECRET';
const TOKEN = 'relay-token-long-enough-1234';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

// One server for the file: express-pouchdb keeps its list of databases beside PouchDB's, per process.
let couch: CouchServer;
beforeAll(async () => {
  couch = await startCouch({ credentials: { user: USER, password: PASSWORD } });
});
afterAll(async () => {
  await couch.close();
});
const relays: RunningRelay[] = [];
afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.close();
});

let databases = 0;
async function relayToCouch(env: Record<string, string> = {}) {
  const address = new URL(couch.url);
  const relay = await startRelay({ SYNC_COUCHDB_URL: `http://${USER}:${PASSWORD}@${address.host}`, SYNC_DATABASE: `relayed-${process.pid}-${++databases}`, ...env });
  relays.push(relay);
  return relay;
}

/** Every body the app gets back, kept so the test can look for the server's credentials in them. */
function appFetch(seen: string[], token?: string): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    const text = await response.text();
    seen.push(text);
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

/** A raw request, so paths reach the relay exactly as written (fetch would resolve `..`). */
function raw(relay: RunningRelay, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function device() {
  const d = await openTestEngine();
  const bot = d.engine.newId();
  const chat = d.engine.newId();
  d.engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.userTurn(chat, d.engine.newId(), 'Hello from the laptop.')]);
  return { ...d, chat };
}

describe("the relay's /sync/ path", () => {
  it('carries replication to the configured database with its own credentials, which never reach the app or the log', async () => {
    const relay = await relayToCouch();
    const seen: string[] = [];
    const a = await device();
    const b = await openTestEngine();
    const replicator = (d: { engine: typeof a.engine }) =>
      createReplicator({ couch: couchDatabase(`${relay.url}/sync`, appFetch(seen)), remote: `${relay.url}/sync`, log: d.engine.sync, deviceId: () => d.engine.identify().dbId });
    await replicator(a).prepare();
    expect((await replicator(a).push()).sent).toBe(a.engine.eventsAfter(0, 100).length);
    expect(await replicator(b).pull()).toBe(a.engine.eventsAfter(0, 100).length);
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
    // The server really asks for credentials: without the relay, the same call is refused.
    expect((await fetch(`${couch.url}/${relay.config.sync!.database.split('/').at(-1)}/_changes`)).status).toBe(401);
    const everything = [...seen, ...relay.logs].join('\n');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(BASIC);
    expect(relay.logs.some((l) => l.startsWith('POST /sync/_bulk_docs 201'))).toBe(true);
  });

  it('forwards only what replication needs: not the server, not other databases, not another validation', async () => {
    const relay = await relayToCouch();
    await createReplicator({ couch: couchDatabase(`${relay.url}/sync`, fetch), remote: 'r', log: (await openTestEngine()).engine.sync, deviceId: () => 'd' }).prepare();
    // A path climbing out of /sync/ is read as the path it resolves to: the app's own page, never the server's answer.
    for (const path of ['/sync/../_all_dbs', '/sync/../../_users/_all_docs', '/sync/%2E%2E/_config', '/sync/_changes/../../_all_dbs']) {
      const answer = await raw(relay, 'GET', path);
      expect(answer.text).not.toMatch(/relayed-|_users|"rows"|couchdb/i);
    }
    for (const [method, path] of [
      ['GET', '/sync/_all_dbs'],
      ['GET', '/sync/_local/a%2F..%2F..%2F_users'],
      ['GET', '/sync/_design/roleplay-engine/_view/x'],
      ['DELETE', '/sync/'],
      ['GET', '/sync/some-event-id'],
      ['GET', '/sync/_all_docs'],
      ['GET', '/sync/_compact'],
      ['PUT', '/sync/_design/other'],
      ['POST', '/sync/_changes'],
    ] as const) {
      const answer = await raw(relay, method, path, method === 'GET' || method === 'DELETE' ? undefined : '{}');
      expect([method, path, answer.status]).toEqual([method, path, 403]);
    }
    const weakened = await raw(relay, 'PUT', `/sync/${VALIDATION_DESIGN._id}`, JSON.stringify({ validate_doc_update: 'function () {}' }));
    expect(weakened.status).toBe(403);
    expect(weakened.text).toMatch(/Only the app's own validation/);
    // The validation on the server is still the app's.
    const design = JSON.parse((await raw(relay, 'GET', `/sync/${VALIDATION_DESIGN._id}`)).text) as { validate_doc_update: string };
    expect(design.validate_doc_update).toBe(VALIDATION_DESIGN.validate_doc_update);
  });

  it('lets no design document, no _local one and nothing but events through _bulk_docs: the validation stays the app’s and events stay as written', async () => {
    const relay = await relayToCouch();
    const d = await device();
    await createReplicator({ couch: couchDatabase(`${relay.url}/sync`, fetch), remote: 'r', log: d.engine.sync, deviceId: () => 'd' }).prepare();
    const design = JSON.parse((await raw(relay, 'GET', `/sync/${VALIDATION_DESIGN._id}`)).text) as { _rev: string };
    const event = { _id: '01890000-0000-7000-8000-000000000001', kind: 'user_turn', chat: null, payload: '{}', cause: null, command: null, device: 'd', ts: 1 };
    expect((await raw(relay, 'POST', '/sync/_bulk_docs', JSON.stringify({ docs: [event] }))).status).toBe(201);
    const written = JSON.parse((await raw(relay, 'POST', '/sync/_all_docs', JSON.stringify({ keys: [event._id] }))).text) as { rows: { value: { rev: string } }[] };
    const rev = written.rows[0]!.value.rev;
    for (const [what, docs] of [
      ['the validation replaced', [{ _id: VALIDATION_DESIGN._id, _rev: design._rev, validate_doc_update: 'function () {}' }]],
      ['a design that refuses everything', [{ _id: '_design/evil', validate_doc_update: "function () { throw({ forbidden: 'no' }); }" }]],
      ['a _local document', [{ _id: '_local/x', value: 1 }]],
      ['an event carrying an attachment', [{ ...event, _id: '01890000-0000-7000-8000-000000000002', _attachments: { a: { data: 'eA==', content_type: 'text/plain' } } }]],
      ['a deletion carrying content', [{ _id: event._id, _rev: rev, _deleted: true, kind: 'x' }]],
      ['an event among them, then a design', [{ ...event, _id: '01890000-0000-7000-8000-000000000003' }, { _id: '_design/evil' }]],
    ] as const) {
      const answer = await raw(relay, 'POST', '/sync/_bulk_docs', JSON.stringify({ docs }));
      expect([what, answer.status]).toEqual([what, 403]);
    }
    expect((await raw(relay, 'POST', '/sync/_bulk_docs', JSON.stringify({ docs: [], all_or_nothing: true }))).status).toBe(403);
    // The validation on the server is still the app's, and no other design reached it.
    const still = JSON.parse((await raw(relay, 'GET', `/sync/${VALIDATION_DESIGN._id}`)).text) as { validate_doc_update: string };
    expect(still.validate_doc_update).toBe(VALIDATION_DESIGN.validate_doc_update);
    // Events still go through, and a bare deletion (the purge) too.
    expect((await raw(relay, 'POST', '/sync/_bulk_docs', JSON.stringify({ docs: [{ _id: event._id, _rev: rev, _deleted: true }] }))).status).toBe(201);
  });

  it('carries "Delete forever" off the server through the relay; _all_docs reads only the documents named by id', async () => {
    const relay = await relayToCouch();
    const seen: string[] = [];
    const a = await device();
    const replicator = createReplicator({ couch: couchDatabase(`${relay.url}/sync`, appFetch(seen)), remote: `${relay.url}/sync`, log: a.engine.sync, deviceId: () => a.engine.identify().dbId });
    await replicator.prepare();
    await replicator.syncOnce();
    a.engine.deleteChat(a.chat);
    a.engine.purgeNow({ chatId: a.chat });
    expect((await replicator.syncOnce()).removed).toBe(2); // the chat and its one turn
    expect(relay.logs.some((l) => l.startsWith('POST /sync/_all_docs 200'))).toBe(true);
    expect(relay.logs.some((l) => /^POST \/sync\/_compact 20/.test(l))).toBe(true);
    const stored = await couch.fetch(`${couch.url}/${relay.config.sync!.database.split('/').at(-1)}/_changes?include_docs=true`, { headers: { authorization: `Basic ${BASIC}` } });
    expect(await stored.text()).not.toContain('Hello from the laptop.');
    // Options in the body are reduced to its keys; the query passes `include_docs` and nothing else.
    const [event, second] = a.engine.eventsAfter(0, 2);
    const asked = JSON.parse((await raw(relay, 'POST', '/sync/_all_docs', JSON.stringify({ keys: [event!.id], include_docs: true }))).text) as { rows: { doc?: unknown; value?: unknown }[] };
    expect(asked.rows[0]!.value).toBeTruthy();
    expect(asked.rows[0]!.doc).toBeUndefined();
    const fetched = JSON.parse((await raw(relay, 'POST', '/sync/_all_docs?include_docs=true&startkey=%22%22&limit=100', JSON.stringify({ keys: [second!.id] }))).text) as { rows: { key: string; doc?: { _id?: string } }[] };
    expect(fetched.rows.map((r) => [r.key, r.doc?._id])).toEqual([[second!.id, second!.id]]);
    for (const body of ['{"include_docs": true}', '{"keys": "x"}', `{"keys": ${JSON.stringify(Array.from({ length: 1_001 }, (_, i) => String(i)))}}`, 'not json']) {
      expect((await raw(relay, 'POST', '/sync/_all_docs', body)).status).toBe(400);
    }
    expect([...seen, ...relay.logs].join('\n')).not.toContain(PASSWORD);
  });

  it('needs the relay token when one is set, as the model calls do', async () => {
    const relay = await relayToCouch({ RELAY_TOKEN: TOKEN });
    expect((await fetch(`${relay.url}/sync/`)).status).toBe(401);
    const seen: string[] = [];
    const couchViaRelay = couchDatabase(`${relay.url}/sync`, appFetch(seen, TOKEN));
    await couchViaRelay.prepare();
    expect((await couchViaRelay.changes(null, 10)).results.length).toBeGreaterThan(0);
    expect((await fetch(`${relay.url}/sync/`, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' } })).status).toBe(403);
  });

  it('says how to set sync up when it is not, and names an unreachable server without its credentials', async () => {
    const plain = await startRelay({});
    relays.push(plain);
    const answer = await fetch(`${plain.url}/sync/_changes`);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toMatch(/no sync server: set SYNC_COUCHDB_URL/);

    const gone = await startRelay({ SYNC_COUCHDB_URL: `http://${USER}:${PASSWORD}@127.0.0.1:9` });
    relays.push(gone);
    const failed = await fetch(`${gone.url}/sync/_changes`);
    const text = await failed.text();
    expect(failed.status).toBe(502);
    expect(text).toMatch(/sync server could not be reached/);
    expect(text + gone.logs.join('\n')).not.toContain(PASSWORD);
  });

  it('names what stopped sync so the app can say it plainly: the relay token, the relay\'s own login, the server down, the relay gone (issue 36, part 6)', async () => {
    const problemOf = async (url: string, fetcher: typeof fetch = fetch) => {
      const replicator = createReplicator({ couch: couchDatabase(url, fetcher), remote: url, log: (await openTestEngine()).engine.sync, deviceId: () => 'device' });
      const failure = await replicator.prepare().then(() => null, (error: unknown) => error as { problem: string; message: string });
      expect(failure).not.toBeNull();
      return failure!;
    };
    const guarded = await relayToCouch({ RELAY_TOKEN: TOKEN });
    const noToken = await problemOf(`${guarded.url}/sync`);
    expect(noToken.problem).toBe('relay-token');

    const badLogin = await startRelay({ SYNC_COUCHDB_URL: `http://${USER}:wrong-password@${new URL(couch.url).host}`, SYNC_DATABASE: `relayed-${process.pid}-login` });
    relays.push(badLogin);
    const answer = await raw(badLogin, 'GET', '/sync/');
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error.code).toBe('sync_login_refused');
    const login = await problemOf(`${badLogin.url}/sync`);
    expect(login.problem).toBe('server-login');
    // The detail is words, not the server's JSON, and never a password.
    expect(login.message).toBe("PUT / answered 502: The sync server refused the relay's login: check the user and password in SYNC_COUCHDB_URL.");
    expect(login.message + badLogin.logs.join('\n')).not.toContain('wrong-password');

    const gone = await startRelay({ SYNC_COUCHDB_URL: 'http://127.0.0.1:9' });
    relays.push(gone);
    expect((await problemOf(`${gone.url}/sync`)).problem).toBe('server-down');
    expect((await problemOf('http://127.0.0.1:9/sync')).problem).toBe('offline');
  });

  it('refuses a sync server address or database name it could not use, at start', () => {
    expect(() => loadConfig({ SYNC_COUCHDB_URL: 'not a url' }, makeDist())).toThrow(/SYNC_COUCHDB_URL must be a URL/);
    expect(() => loadConfig({ SYNC_COUCHDB_URL: 'ftp://host/' }, makeDist())).toThrow(/http or https/);
    expect(() => loadConfig({ SYNC_COUCHDB_URL: 'http://127.0.0.1:5984', SYNC_DATABASE: 'Stories!' }, makeDist())).toThrow(/SYNC_DATABASE must be a CouchDB database name/);
  });
});
