import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { couchDatabase, relayGenerations, type Fetch } from '../../src/engine/sync/couch.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import { SyncError } from '../../src/engine/sync/sync-error.ts';
import { freshDatabaseName } from '../support/couch-server.ts';
import { canonicalProjections } from '../support/dump.ts';
import { relaysToCouch } from '../support/relays-to-couch.ts';
import { scratchDir } from '../support/scratch.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { exchange, playedStory, type Device } from '../support/sync-devices.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { SYNC_TOPIC } from '../../src/engine/leader/stream.ts';
import type { SyncStatus } from '../../src/engine/leader/sync-runner.ts';

const fixture = relaysToCouch();

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

async function device(start = Date.UTC(2026, 0, 1)): Promise<Device> {
  const clock = testClock(start);
  return openTestEngine({ now: () => clock.advance(1_000) });
}


/** A relay in front of one database of the test server, keeping which generation holds the story in `stateFile`. */
const relay = (database: string, stateFile: string, options: { afterCommitWritten?: () => void } = {}) =>
  fixture.relay({ SYNC_DATABASE: database, RELAY_SYNC_STATE_FILE: stateFile }, options);

/** A device's replicator through the relay at `where.url` (followed if the relay restarts elsewhere), with `intercept` seeing each call first. */
function replicator(d: Device, where: { url: string }, intercept?: (url: string, init?: Parameters<Fetch>[1]) => void) {
  const through: Fetch = async (url, init) => {
    const moved = url.replace(/^http:\/\/[^/]+/, where.url);
    intercept?.(moved, init);
    return fetch(moved, init);
  };
  const progress: [number, number][] = [];
  const made = createReplicator({
    couch: couchDatabase(`${where.url}/sync`, through),
    generations: relayGenerations(`${where.url}/api/sync`, `${where.url}/sync`, through),
    remote: 'relay/sync',
    log: d.engine.sync,
    deviceId: () => d.engine.identify().dbId,
    passphrase: () => d.engine.sync.passphrase(),
    randomBytes: random,
    batch: 50,
    resealProgress: (written, total) => progress.push([written, total]),
  });
  return Object.assign(made, { progress });
}

/** A fresh database behind a relay, and a laptop whose story of `exchanges` synced there in the clear. */
async function syncedInTheClear(exchanges: number, stateFile = join(scratchDir('reseal-'), 'sync.json')) {
  const name = freshDatabaseName();
  const first = await relay(name, stateFile);
  const where = { url: first.url };
  const laptop = await device();
  const played = playedStory(laptop, exchanges);
  const plain = replicator(laptop, where);
  await plain.prepare();
  await plain.syncOnce();
  return { name, stateFile, first, where, laptop, ...played, events: laptop.engine.eventsAfter(0, 100_000).length };
}

/** Counts (and may stop) the pages a rewrite sends into the next database. */
const isRewritePage = (url: string, init?: Parameters<Fetch>[1]) => Boolean(init?.headers?.['x-sync-rewrite']) && url.endsWith('/_bulk_docs');

/** What the server holds in a database: its documents, or null when the database is gone. */
async function stored(name: string): Promise<Record<string, unknown>[] | null> {
  const response = await fixture.couch().fetch(`${fixture.couch().url}/${name}/_all_docs?include_docs=true`);
  if (response.status === 404) return null;
  const body = (await response.json()) as { rows: { id: string; doc: Record<string, unknown> }[] };
  return body.rows.filter((r) => !r.id.startsWith('_design/')).map((r) => r.doc);
}

describe('writing the story anew on the server: encrypt later, change passphrase (issue 36, part 9)', () => {
  it('encrypts a story that synced in the clear: every event sealed in a new database, the plain one deleted; the other device is asked for the passphrase, then has everything, its own offline turn too', async () => {
    const name = freshDatabaseName();
    const where = { url: '' };
    where.url = (await relay(name, join(scratchDir('reseal-'), 'sync.json'))).url;
    const laptop = await device();
    const phone = await device(Date.UTC(2025, 0, 1));
    const { chat, bot } = playedStory(laptop, 20);
    const a = replicator(laptop, where);
    await a.prepare();
    await a.syncOnce();
    const phoneCalls: string[] = [];
    const b = replicator(phone, where, (url) => phoneCalls.push(url));
    await b.prepare();
    await b.syncOnce();
    // The phone writes a turn the laptop will not have seen when it seals.
    exchange(phone, chat, bot, 'written on the phone meanwhile');

    expect(await a.reseal('correct horse battery staple')).toBe(true);
    laptop.engine.sync.setPassphrase('correct horse battery staple');
    const events = laptop.engine.eventsAfter(0, 100_000).length;
    expect(a.progress.at(-1)).toEqual([events, events]);
    expect(a.progress.length).toBeGreaterThanOrEqual(3);
    // The plain database is gone whole; the new one holds only sealed documents.
    expect(await stored(name)).toBeNull();
    const sealed = (await stored(`${name}-g2`))!;
    expect(sealed).toHaveLength(events);
    expect(sealed.every((doc) => 'sealed' in doc && !('payload' in doc))).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain('line 7');

    // The phone's next call finds the story moved; worked out again, it needs the passphrase.
    const moved = await b.push().catch((error: unknown) => error);
    expect((moved as SyncError).problem).toBe('generation-changed');
    const asked = await b.prepare().catch((error: unknown) => error);
    expect((asked as SyncError).problem).toBe('passphrase-needed');
    phone.engine.sync.setPassphrase('correct horse battery staple');
    phoneCalls.length = 0;
    await b.prepare();
    await b.syncOnce();
    // It holds the story already: the new generation's changes come as ids, no document twice.
    expect(phoneCalls.filter((url) => url.includes('/_changes?')).every((url) => url.includes('include_docs=false'))).toBe(true);
    await a.prepare();
    await a.syncOnce();
    expect(canonicalProjections(laptop.db)).toEqual(canonicalProjections(phone.db));
    expect(laptop.db.all<{ text: string }>("SELECT text FROM transcript WHERE role = 'user' ORDER BY seq").at(-1)!.text).toBe('written on the phone meanwhile');
    expect(JSON.stringify(await stored(`${name}-g2`))).not.toContain('written on the phone meanwhile');
  });

  it('a device killed midway leaves the story as it was for every device, and its next attempt resumes where it stopped', async () => {
    const { name, where, laptop, events } = await syncedInTheClear(30);
    const phone = await device(Date.UTC(2025, 0, 1));

    // The tab dies after its third page into the next database.
    let pages = 0;
    const dying = replicator(laptop, where, (url, init) => {
      if (isRewritePage(url, init) && ++pages > 3) throw new Error('the tab was killed');
    });
    await expect(dying.reseal('a new passphrase here')).rejects.toThrow(/killed/);
    // Nothing changed for anyone: the plain story is whole where it was, and the phone syncs from it.
    expect(await stored(name)).toHaveLength(events);
    expect((await stored(`${name}-g2`))!.length).toBe(150);
    const b = replicator(phone, where);
    await b.prepare();
    await b.syncOnce();
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));

    // Started again (a new tab): the first three pages are not sent twice.
    let sent = 0;
    const again = replicator(laptop, where, (url, init) => {
      if (isRewritePage(url, init)) sent += (JSON.parse(init!.body!) as { docs: unknown[] }).docs.length;
    });
    expect(await again.reseal('a new passphrase here')).toBe(true);
    expect(sent).toBe(events - 150);
    expect(await stored(name)).toBeNull();
    expect(await stored(`${name}-g2`)).toHaveLength(events);
  });

  it('a relay killed midway, or between its commit and deleting the old database, leaves no half-sealed story: the next start finishes the job', async () => {
    const { name, stateFile, first, where, laptop, events } = await syncedInTheClear(30);

    // The relay goes down under the rewrite.
    let pages = 0;
    const cut = replicator(laptop, where, (url, init) => {
      if (isRewritePage(url, init) && ++pages === 3) void first.close();
    });
    await expect(cut.reseal('sealed after a restart')).rejects.toBeInstanceOf(SyncError);
    expect(await stored(name)).toHaveLength(events);

    // Back, it serves the old story until a rewrite commits; this one dies right after the commit
    // reached the state file, before the old database was deleted.
    let crash = true;
    const second = await relay(name, stateFile, {
      afterCommitWritten: () => {
        if (crash) throw new Error('the relay was killed');
      },
    });
    where.url = second.url;
    await expect(replicator(laptop, where).reseal('sealed after a restart')).rejects.toBeInstanceOf(SyncError);
    expect(await stored(name)).toHaveLength(events); // still there: the crash came before its deletion
    await second.close();

    crash = false;
    const third = await relay(name, stateFile);
    where.url = third.url;
    // At its start it deletes the database the commit retired (asked only once it is done: a read
    // racing the deletion brings an empty one back on the in-memory test server).
    await expect.poll(() => (JSON.parse(readFileSync(stateFile, 'utf8')) as { retired: string[] }).retired, { timeout: 15_000 }).toEqual([]);
    expect(await stored(name)).toBeNull();
    // The device learns the commit landed: nothing to write again.
    const after = replicator(laptop, where);
    expect(await after.reseal('sealed after a restart')).toBe(false);
    laptop.engine.sync.setPassphrase('sealed after a restart');
    await after.prepare();
    await after.syncOnce();
    const sealed = (await stored(`${name}-g2`))!;
    expect(sealed).toHaveLength(events);
    expect(sealed.every((doc) => 'sealed' in doc)).toBe(true);
  });

  it('"Encrypt" through the leader shows its progress, and a tab killed midway leaves it to the next leader, which finishes it', async () => {
    const name = freshDatabaseName();
    const where = { url: '' };
    where.url = (await relay(name, join(scratchDir('reseal-'), 'sync.json'))).url;
    const laptop = await device();
    playedStory(laptop, 220);
    const events = laptop.engine.eventsAfter(0, 100_000).length;
    // Pages of 500: killed as it sends the second.
    let dead = false;
    let pages = 0;
    const through: Fetch = async (url, init) => {
      if (isRewritePage(url, init) && ++pages > 1) dead = true;
      if (dead) throw new Error('the tab was killed');
      return fetch(url.replace(/^http:\/\/[^/]+/, where.url), init);
    };
    const leaderOf = () => {
      const made = testLeader(laptop.engine, narratorOnly(scriptedLlm().client), {
        sync: { couch: couchDatabase(`${where.url}/sync`, through), generations: relayGenerations(`${where.url}/api/sync`, `${where.url}/sync`, through), remote: 'relay/sync', longPollMs: 1_000, maxBackoffMs: 200 },
      });
      made.leader.start();
      const statuses = () => made.events.flatMap((e) => (e.type === 'publish' && e.topic === SYNC_TOPIC ? [e.data as SyncStatus] : []));
      return { ...made, statuses };
    };
    const first = leaderOf();
    await expect.poll(() => first.statuses().at(-1)?.state, { timeout: 15_000 }).toBe('up-to-date');
    await first.client.resealSync('correct horse battery staple');
    await expect.poll(() => dead, { timeout: 15_000 }).toBe(true);
    first.leader.stop();
    expect(laptop.engine.sync.pendingPassphrase()).toBe('correct horse battery staple');
    expect(await stored(name)).toHaveLength(events);
    expect(await stored(`${name}-g2`)).toHaveLength(500);

    dead = false;
    pages = -1_000;
    const second = leaderOf();
    await expect.poll(() => laptop.engine.sync.pendingPassphrase(), { timeout: 15_000 }).toBeNull();
    await expect.poll(() => second.statuses().at(-1)?.state, { timeout: 15_000 }).toBe('up-to-date');
    second.leader.stop();
    expect(laptop.engine.sync.passphrase()).toBe('correct horse battery staple');
    expect(second.statuses().at(-1)!.encrypted).toBe(true);
    // The bar filled page by page, out of the whole story.
    const bar = second.statuses().flatMap((s) => (s.resealing !== null ? [[s.resealing, s.resealTotal]] : []));
    expect(bar).toEqual([[500, events], [1_000, events], [events, events]]);
    expect(await stored(name)).toBeNull();
    expect((await stored(`${name}-g2`))!.every((doc) => 'sealed' in doc)).toBe(true);
  });

  it('changes the passphrase: sealed anew with the new one; a device with the old one is told it is not the story\'s', async () => {
    const name = freshDatabaseName();
    const where = { url: '' };
    where.url = (await relay(name, join(scratchDir('reseal-'), 'sync.json'))).url;
    const laptop = await device();
    const phone = await device(Date.UTC(2025, 0, 1));
    playedStory(laptop, 5);
    laptop.engine.sync.setPassphrase('the first passphrase');
    phone.engine.sync.setPassphrase('the first passphrase');
    const a = replicator(laptop, where);
    await a.prepare();
    await a.syncOnce();
    const b = replicator(phone, where);
    await b.prepare();
    await b.syncOnce();
    expect(await stored(name)).not.toBeNull();

    expect(await a.reseal('the second passphrase')).toBe(true);
    laptop.engine.sync.setPassphrase('the second passphrase');
    expect(await stored(name)).toBeNull();
    expect(await stored(`${name}-g3`)).toBeNull();
    const refused = await b.prepare().catch((error: unknown) => error);
    expect((refused as SyncError).problem).toBe('passphrase-wrong');
    phone.engine.sync.setPassphrase('the second passphrase');
    await b.prepare();
    await b.syncOnce();
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
    // And once more: generation 3, the second database deleted in its turn.
    expect(await a.reseal('the third passphrase')).toBe(true);
    expect(await stored(`${name}-g2`)).toBeNull();
    expect((await stored(`${name}-g3`))!.every((doc) => 'sealed' in doc)).toBe(true);
  });
});
