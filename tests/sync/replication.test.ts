import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { SyncError } from '../../src/engine/sync/sync-error.ts';
import { VALIDATION_DESIGN } from '../../src/engine/sync/validation-design.ts';
import { eventToDoc } from '../../src/engine/sync/event-docs.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import { startCouch, freshDatabaseName, type CouchServer } from '../support/couch-server.ts';
import { canonicalProjections } from '../support/dump.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { exchange, playedStory, replicatorFor as replicatorForServer, type Device } from '../support/sync-devices.ts';

let server: CouchServer;
beforeAll(async () => {
  server = await startCouch();
});
afterAll(async () => {
  await server.close();
});


const json = async (path: string, init?: RequestInit) => {
  const response = await server.fetch(`${server.url}${path}`, { ...init, headers: { 'content-type': 'application/json' } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { results?: { id: string; doc: Record<string, unknown> }[] } };
};

async function device(start = Date.UTC(2026, 0, 1)): Promise<Device> {
  const clock = testClock(start);
  return openTestEngine({ now: () => clock.advance(1_000) });
}

const replicatorFor = (d: Device, database: string, batch?: number) => replicatorForServer(server, d, database, batch);


const userLines = (d: Device, chat: string) =>
  d.db.all<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'user' ORDER BY seq", [chat]).map((r) => r.text);

describe('sync through a CouchDB server', () => {
  it('pushes one document per event and another device pulls the whole story from it', async () => {
    const name = freshDatabaseName();
    const a = await device();
    const { chat } = playedStory(a, 12);
    const sendA = replicatorFor(a, name, 16);
    await sendA.prepare();
    const pushed = await sendA.push();
    const events = a.engine.eventsAfter(0, 10_000);
    expect(pushed).toEqual({ sent: events.length, refused: [] });

    // The server holds each event as a document, named by the event's id, its revision from its content.
    const changes = await json(`/${name}/_changes?include_docs=true`);
    const docs = changes.body.results!.filter((r) => !r.id.startsWith('_design/'));
    expect(docs.map((r) => r.id).sort()).toEqual(events.map((e) => e.id).sort());
    const first = docs.find((r) => r.id === events[0]!.id)!.doc;
    expect(first).toMatchObject({ _rev: eventToDoc(events[0]!)._rev, kind: events[0]!.kind, device: events[0]!.device_id });
    expect(changes.body.results!.some((r) => r.id === VALIDATION_DESIGN._id)).toBe(true);

    const b = await device(Date.UTC(2025, 0, 1));
    const progress: [number, number | null][] = [];
    const receive = createReplicator({
      couch: couchDatabase(`${server.url}/${name}`, server.fetch),
      remote: `${server.url}/${name}`,
      log: b.engine.sync,
      deviceId: () => b.engine.identify().dbId,
      batch: 16,
      progress: (n, total) => progress.push([n, total]),
    });
    expect(await receive.pull()).toBe(events.length);
    // A bar that fills: every page says how far, out of the whole story.
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.map(([, total]) => total)).toEqual(progress.map(() => events.length));
    expect(progress.map(([n]) => n)).toEqual([...progress.map(([n]) => n)].sort((x, y) => x - y));
    expect(progress.at(-1)).toEqual([events.length, events.length]);
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
    expect(userLines(b, chat)).toEqual(userLines(a, chat));
    // B's clock is a year behind A's, yet what it writes next sorts after A's story.
    expect(b.engine.newId() > events.map((e) => e.id).sort().at(-1)!).toBe(true);
    // The checkpoint is left on the server too, in a _local document.
    expect((await json(`/${name}/_local/roleplay-engine-${a.engine.identify().dbId}`)).body.pushed_seq).toBe(events.at(-1)!.seq);
  });

  it('counts a backlog going up, page by page, out of what waited; the log says how much still waits (issue 36, part 7)', async () => {
    const name = freshDatabaseName();
    const a = await device();
    playedStory(a, 12);
    const remote = `${server.url}/${name}`;
    const waiting = a.engine.eventsAfter(0, 10_000).length;
    expect(a.engine.sync.unsynced(remote)).toBe(waiting);
    const progress: [number, number][] = [];
    const send = createReplicator({ couch: couchDatabase(remote, server.fetch), remote, log: a.engine.sync, deviceId: () => a.engine.identify().dbId, batch: 16, pushProgress: (n, total) => progress.push([n, total]) });
    await send.prepare();
    await send.push();
    expect(progress.length).toBe(Math.ceil(waiting / 16));
    expect(progress.map(([n]) => n)).toEqual(progress.map((_, i) => Math.min((i + 1) * 16, waiting)));
    expect(new Set(progress.map(([, total]) => total))).toEqual(new Set([waiting]));
    expect(a.engine.sync.unsynced(remote)).toBe(0);
  });

  it('the device that pushed never downloads its own events back: its pull reads ids and fetches only what another device wrote meanwhile (issue 36, part 7)', async () => {
    const name = freshDatabaseName();
    const a = await device();
    const b = await device(Date.UTC(2025, 0, 1));
    const { chat, bot } = playedStory(a, 30);
    // What the server's answers carried to the laptop, by request.
    const answers: { url: string; body: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await server.fetch(input, init);
      const body = await response.text();
      answers.push({ url: String(input), body });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const laptop = createReplicator({ couch: couchDatabase(`${server.url}/${name}`, recording), remote: `${server.url}/${name}`, log: a.engine.sync, deviceId: () => a.engine.identify().dbId, batch: 40 });
    await laptop.prepare();
    const pushed = await laptop.push();
    expect(pushed.sent).toBeGreaterThan(100);
    // Meanwhile the phone writes a line of its own, which lands among the laptop's on the server.
    const phone = replicatorFor(b, name);
    await phone.prepare();
    await phone.pull();
    exchange(b, chat, bot, 'from the phone');
    await phone.push();

    answers.length = 0;
    expect(await laptop.pull()).toBe(5);
    const pulls = answers.filter((a) => a.url.includes('/_changes'));
    expect(pulls.length).toBeGreaterThan(3);
    expect(pulls.every((p) => p.url.includes('include_docs=false'))).toBe(true);
    // No story text of its own came back; only the phone's exchange, fetched by id.
    const carried = answers.map((a) => a.body).join('\n');
    expect(carried).not.toContain('line 7');
    expect(carried).toContain('from the phone');
    expect(userLines(a, chat).at(-1)).toBe('from the phone');

    // Once the echo has passed, a pull takes documents with its changes again: one request, not two.
    exchange(b, chat, bot, 'again from the phone');
    await phone.push();
    answers.length = 0;
    expect(await laptop.pull()).toBe(5);
    expect(answers.map((a) => new URL(a.url).pathname.split('/').at(-1))).toEqual(['_changes']);
    expect(answers[0]!.url).toContain('include_docs=true');
    expect(canonicalProjections(a.db)).toEqual(canonicalProjections(b.db));

    // A device with a story of its own that joins a longer one pulls documents, a page a request:
    // what it holds is too little of the server's story to be worth asking ids first.
    const c = await device(Date.UTC(2024, 0, 1));
    playedStory(c, 1);
    answers.length = 0;
    const joining = createReplicator({ couch: couchDatabase(`${server.url}/${name}`, recording), remote: `${server.url}/${name}`, log: c.engine.sync, deviceId: () => c.engine.identify().dbId, batch: 40 });
    await joining.prepare();
    await joining.pull();
    const joiningPulls = answers.filter((a) => a.url.includes('/_changes?'));
    expect(joiningPulls.length).toBeGreaterThan(3);
    expect(joiningPulls.every((p) => p.url.includes('include_docs=true'))).toBe(true);
  });

  it('pushing again sends nothing, and the server refuses any change to an event', async () => {
    const name = freshDatabaseName();
    const a = await device();
    playedStory(a, 3);
    const sync = replicatorFor(a, name);
    await sync.prepare();
    await sync.push();
    // A restore replaces the log and its seqs: every event is offered again, and none is sent.
    const log = a.engine.eventsAfter(0, 10_000).map(({ seq: _, ...event }) => event);
    a.engine.restore.begin();
    a.engine.restore.add(log);
    a.engine.restore.commit(log.length);
    expect(a.engine.sync.state(`${server.url}/${name}`).pushedSeq).toBe(0);
    expect(await sync.push()).toEqual({ sent: 0, refused: [] });
    expect(a.engine.sync.state(`${server.url}/${name}`).pushedSeq).toBe(a.engine.headSeq());

    const [event] = a.engine.eventsAfter(0, 1);
    const doc = eventToDoc(event!);
    const edited = await json(`/${name}/${doc._id}`, { method: 'PUT', body: JSON.stringify({ ...doc, payload: '{"name":"Someone else"}' }) });
    expect(edited.status).toBe(403);
    // A deletion is how a purge leaves the server, so it may carry nothing: not a rewritten event.
    const smuggled = await json(`/${name}/_bulk_docs`, { method: 'POST', body: JSON.stringify({ docs: [{ _id: doc._id, _rev: doc._rev, _deleted: true, payload: '{"name":"Someone else"}' }] }) });
    expect(JSON.stringify(smuggled.body)).toMatch(/forbidden/);
    // A second version of the event pushed as a replicator would (another revision): refused too.
    const forged = await json(`/${name}/_bulk_docs`, { method: 'POST', body: JSON.stringify({ new_edits: false, docs: [{ ...doc, _rev: '1-00000000000000000000000000000000', payload: '{}' }] }) });
    expect(JSON.stringify(forged.body)).toMatch(/forbidden/);
    const stored = await json(`/${name}/${doc._id}`);
    expect(stored.body.payload).toBe(doc.payload);
  });

  it('resumes from its checkpoints: a pull cut short before its checkpoint, or a push before its, is repeated harmlessly', async () => {
    const name = freshDatabaseName();
    const a = await device();
    const { chat, bot } = playedStory(a, 6);
    const sendA = replicatorFor(a, name, 10);
    await sendA.prepare();
    await sendA.push();
    const b = await device();
    const receive = replicatorFor(b, name, 10);
    await receive.pull();
    const remote = `${server.url}/${name}`;
    // A crash after the pages were merged but before their checkpoint: B's checkpoint is back at the start.
    b.db.run('UPDATE sync_state SET pulled_since = NULL WHERE remote = ?', [remote]);
    const rows = canonicalProjections(b.db);
    expect(await receive.pull()).toBe(0);
    expect(canonicalProjections(b.db)).toEqual(rows);

    // A crash after the server took A's batch but before A noted it: the next push finds nothing missing.
    exchange(a, chat, bot, 'after the crash');
    const before = a.engine.sync.state(remote).pushedSeq;
    await sendA.push();
    a.db.run('UPDATE sync_state SET pushed_seq = ? WHERE remote = ?', [before, remote]);
    expect((await sendA.push()).sent).toBe(0);
    await receive.pull();
    expect(userLines(b, chat)).toContain('after the crash');
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
  });

  it('a line written while a large pull is arriving holds the rest of the pull back, merged in one go at its end, the line after the whole story', async () => {
    const name = freshDatabaseName();
    const a = await device(Date.UTC(2026, 0, 1));
    const { chat, bot } = playedStory(a, 20);
    const sendA = replicatorFor(a, name, 10);
    await sendA.prepare();
    await sendA.push();
    const events = a.engine.eventsAfter(0, 10_000).length;
    // The phone, a month later, opens the chat after the first pages and writes in it.
    const b = await device(Date.UTC(2026, 1, 1));
    const eventsOnB: number[] = [];
    const progress: number[] = [];
    let wrote = false;
    const receive = createReplicator({
      couch: couchDatabase(`${server.url}/${name}`, server.fetch),
      remote: `${server.url}/${name}`,
      log: b.engine.sync,
      deviceId: () => b.engine.identify().dbId,
      batch: 10,
      progress: (n) => {
        progress.push(n);
        eventsOnB.push(b.engine.eventsAfter(0, 10_000).length);
        if (!wrote && n >= 30) {
          exchange(b, chat, bot, 'phone line');
          wrote = true;
        }
      },
    });
    await receive.pull();
    expect(wrote).toBe(true);
    // After the line, no page went into the log (each would have replayed the chat whole) until the last.
    const afterLine = eventsOnB.slice(eventsOnB.findIndex((_, i) => progress[i]! >= 30) + 1, -1);
    expect(afterLine.length).toBeGreaterThan(3);
    expect(new Set(afterLine)).toEqual(new Set([afterLine[0]]));
    // The bar still moved page by page.
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    expect(progress.at(-1)).toBe(events);
    // The whole story is here, the phone's line after it, and nothing held back is left.
    expect(b.engine.eventsAfter(0, 10_000).length).toBe(events + 5);
    expect(userLines(b, chat)).toEqual([...userLines(a, chat), 'phone line']);
    expect(b.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_held_back')!.n).toBe(0);
    // Pushed back, the laptop reads the same story.
    const sendB = replicatorFor(b, name, 10);
    await sendB.push();
    await sendA.pull();
    expect(canonicalProjections(a.db)).toEqual(canonicalProjections(b.db));
  });

  it('pages held back when the pull was cut short are merged by the next pull, nothing lost or doubled', async () => {
    const name = freshDatabaseName();
    const a = await device(Date.UTC(2026, 0, 1));
    const { chat, bot } = playedStory(a, 20);
    const sendA = replicatorFor(a, name, 10);
    await sendA.prepare();
    await sendA.push();
    const b = await device(Date.UTC(2026, 1, 1));
    const remote = `${server.url}/${name}`;
    let pages = 0;
    const failing = couchDatabase(remote, server.fetch);
    const cutShort = { ...failing, changes: async (...args: Parameters<typeof failing.changes>) => {
      if (++pages === 6) throw new SyncError('The relay went away.', undefined, true);
      return failing.changes(...args);
    } };
    let wrote = false;
    const receive = createReplicator({
      couch: cutShort, remote, log: b.engine.sync, deviceId: () => b.engine.identify().dbId, batch: 10,
      progress: (n) => {
        if (!wrote && n >= 20) {
          exchange(b, chat, bot, 'phone line');
          wrote = true;
        }
      },
    });
    await expect(receive.pull()).rejects.toThrow('The relay went away.');
    expect(b.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_held_back')!.n).toBeGreaterThan(0);
    // The tab closes; the next leader pulls on from the checkpoint past the held pages.
    await replicatorFor(b, name, 10).pull();
    expect(b.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_held_back')!.n).toBe(0);
    expect(b.engine.eventsAfter(0, 10_000).length).toBe(a.engine.eventsAfter(0, 10_000).length + 5);
    expect(userLines(b, chat)).toEqual([...userLines(a, chat), 'phone line']);
  });

  it('long-polls: a device that is waiting receives a turn as another device pushes it', async () => {
    const name = freshDatabaseName();
    const a = await device();
    const { chat, bot } = playedStory(a, 2);
    const sendA = replicatorFor(a, name);
    await sendA.prepare();
    await sendA.push();
    const b = await device();
    const receive = replicatorFor(b, name);
    await receive.pull();
    const waiting = receive.pull({ ms: 10_000 });
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 200));
    exchange(a, chat, bot, 'live from the laptop');
    await sendA.push();
    // It answers as the first of the five events lands; the live loop's next look brings any rest.
    expect(await waiting).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    await receive.pull();
    expect(userLines(b, chat)).toContain('live from the laptop');
    expect(canonicalProjections(b.db)).toEqual(canonicalProjections(a.db));
  });

  it('two devices that played offline both keep every turn once they meet', async () => {
    const name = freshDatabaseName();
    const a = await device();
    const { chat, bot } = playedStory(a, 2);
    const syncA = replicatorFor(a, name);
    await syncA.prepare();
    await syncA.syncOnce();
    const b = await device();
    const syncB = replicatorFor(b, name);
    await syncB.syncOnce();
    exchange(a, chat, bot, 'laptop, offline');
    exchange(b, chat, bot, 'phone, offline');
    await syncA.syncOnce();
    await syncB.syncOnce();
    await syncA.syncOnce();
    expect(userLines(a, chat)).toEqual(expect.arrayContaining(['laptop, offline', 'phone, offline']));
    expect(canonicalProjections(a.db)).toEqual(canonicalProjections(b.db));
  });

  it('refuses a document that is not one of this app\'s events, merging nothing and keeping its checkpoint', async () => {
    const name = freshDatabaseName();
    const a = await device();
    playedStory(a, 1);
    const syncA = replicatorFor(a, name);
    await syncA.prepare();
    await syncA.push();
    const b = await device();
    const receive = replicatorFor(b, name);
    await receive.pull();
    const count = b.engine.eventsAfter(0, 10_000).length;
    const since = b.engine.sync.state(`${server.url}/${name}`).pulledSince;
    // Someone with the server's password writes a document of their own, then one whose content was altered.
    await json(`/${name}/_bulk_docs`, { method: 'POST', body: JSON.stringify({ docs: [{ _id: 'graffiti', hello: 'world' }] }) });
    await expect(receive.pull()).rejects.toThrow(SyncError);
    await expect(receive.pull()).rejects.toThrow(/graffiti .* not an event of this app/);
    expect(b.engine.eventsAfter(0, 10_000).length).toBe(count);
    expect(b.engine.sync.state(`${server.url}/${name}`).pulledSince).toBe(since);
  });
});
