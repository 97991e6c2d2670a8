import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { draft } from '../support/fixtures.ts';
import { SYNC_TOPIC } from '../../src/engine/leader/stream.ts';
import type { SyncStatus } from '../../src/engine/leader/sync-runner.ts';
import { couchDatabase, type Fetch } from '../../src/engine/sync/couch.ts';
import { freshDatabaseName, startCouch, type CouchServer } from '../support/couch-server.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';

let server: CouchServer;
beforeAll(async () => {
  server = await startCouch();
});
afterAll(async () => {
  await server.close();
});
const running: { stop(): void }[] = [];
afterEach(() => {
  for (const leader of running.splice(0)) leader.stop();
});

async function syncingDevice(
  database: string,
  fetch: Fetch = server.fetch as unknown as Fetch,
  longPollMs = 2_000,
  llm: LlmClient = narratorOnly(scriptedLlm().client),
  backoff: { firstBackoffMs?: number; maxBackoffMs?: number } = { maxBackoffMs: 200 },
) {
  const { engine } = await openTestEngine();
  const remote = `${server.url}/${database}`;
  const device = testLeader(engine, llm, { sync: { couch: couchDatabase(remote, fetch), remote, longPollMs, ...backoff } });
  running.push(device.leader);
  device.leader.start();
  const statuses = () => device.events.flatMap((e) => (e.type === 'publish' && e.topic === SYNC_TOPIC ? [e.data as SyncStatus] : []));
  return { engine, ...device, statuses };
}

async function until<T>(what: () => T | undefined | false, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = what();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms in vain`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const youName = (engine: Engine) => engine.getYou()?.name;

describe('the leader keeps this device in step with the sync server', () => {
  it('what one device writes reaches the other while both are online, and its tabs are told', async () => {
    const database = freshDatabaseName();
    // Each waits up to 60 s on the server's next change: what arrives sooner came by the long-poll.
    const a = await syncingDevice(database, undefined, 60_000);
    const b = await syncingDevice(database, undefined, 60_000);
    await until(() => a.statuses().some((s) => s.state === 'up-to-date') && b.statuses().some((s) => s.state === 'up-to-date'));
    const noticesBefore = b.changes().length;
    await a.client.saveYou({ name: 'Ada on the laptop', pronouns: 'she/her', persona: 'A cartographer.' });
    await until(() => youName(b.engine) === 'Ada on the laptop', 10_000);
    expect(b.changes().length).toBeGreaterThan(noticesBefore);
    expect(b.changes().at(-1)!.tables).toContain('you');
    expect(await b.client.syncStatus()).toMatchObject({ state: 'up-to-date', pulled: expect.any(Number) });
    // And back the other way.
    await b.client.saveYou({ name: 'Ada on the phone', pronouns: 'she/her', persona: 'A cartographer.' });
    await until(() => youName(a.engine) === 'Ada on the phone', 10_000);
  });

  it('offline, it says so and keeps trying; back online, it sends what was written meanwhile', async () => {
    const database = freshDatabaseName();
    let down = true;
    const flaky: Fetch = (url, init) => (down ? Promise.reject(new TypeError('fetch failed')) : (server.fetch as unknown as Fetch)(url, init));
    const a = await syncingDevice(database, flaky);
    await a.client.saveYou({ name: 'Written offline', pronouns: '', persona: '' });
    const offline = await until(() => a.statuses().find((s) => s.state === 'offline'));
    expect(offline.detail).toMatch(/could not be reached/);
    down = false;
    const b = await syncingDevice(database);
    await until(() => youName(b.engine) === 'Written offline');
    await until(() => a.statuses().at(-1)?.state === 'up-to-date');
  });

  it('tries again at once when the relay token is fixed or the network comes back, not at the end of its backoff (issue 36, part 5)', async () => {
    const database = freshDatabaseName();
    let refused = true;
    let asked = 0;
    const gate: Fetch = (url, init) => {
      asked++;
      return refused
        ? Promise.resolve({ ok: false, status: 401, json: async () => ({}), text: async () => '{"error":{"message":"This relay needs a token"}}' })
        : (server.fetch as unknown as Fetch)(url, init);
    };
    // A minute's wait after the first refusal: only a retry at once can sync within this test.
    const a = await syncingDevice(database, gate, 2_000, undefined, { firstBackoffMs: 60_000, maxBackoffMs: 60_000 });
    await a.client.saveYou({ name: 'Written before the token', pronouns: '', persona: '' });
    await until(() => a.statuses().find((s) => s.state === 'error'));
    const refusals = asked;
    await new Promise((r) => setTimeout(r, 300));
    expect(asked).toBe(refusals); // waiting out its backoff, as before
    refused = false;
    a.leader.syncRetry();
    await until(() => a.statuses().at(-1)?.state === 'up-to-date');
    const b = await syncingDevice(database);
    await until(() => youName(b.engine) === 'Written before the token');

    // Offline, then back: the same.
    refused = true;
    a.leader.syncRetry();
    await until(() => a.statuses().at(-1)?.state === 'error');
    refused = false;
    a.leader.syncRetry();
    await until(() => a.statuses().at(-1)?.state === 'up-to-date');
  });

  it('paused on this device, nothing moves until the player resumes', async () => {
    const database = freshDatabaseName();
    const a = await syncingDevice(database);
    const b = await syncingDevice(database);
    await until(() => b.statuses().some((s) => s.state === 'up-to-date'));
    await b.client.setSyncPaused(true);
    await until(() => b.statuses().at(-1)?.state === 'paused');
    await a.client.saveYou({ name: 'While paused', pronouns: '', persona: '' });
    await new Promise((r) => setTimeout(r, 600));
    expect(youName(b.engine)).not.toBe('While paused');
    await b.client.setSyncPaused(false);
    await until(() => youName(b.engine) === 'While paused');
  });

  it('says sync is unavailable when the relay has no sync server, and stops asking', async () => {
    let calls = 0;
    const noSync: Fetch = async () => {
      calls++;
      return { ok: false, status: 404, json: async () => ({}), text: async () => '{"error":{"message":"This relay has no sync server"}}' };
    };
    const a = await syncingDevice(freshDatabaseName(), noSync);
    const status = await until(() => a.statuses().find((s) => s.state === 'unavailable'));
    expect(status.detail).toMatch(/404/);
    const seen = calls;
    await new Promise((r) => setTimeout(r, 400));
    expect(calls).toBe(seen);
  });

  it('holds what arrives while a reply streams here, and merges it once the reply is written', async () => {
    const database = freshDatabaseName();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: LlmClient = narratorOnly({
      complete: async () => ({ text: '', usage: null, model: 'm', finishReason: 'stop' }),
      async *stream() {
        yield { type: 'delta', text: 'Mira begins to answer' };
        await held;
        yield { type: 'delta', text: ', and finishes.' };
      },
    });
    const a = await syncingDevice(database);
    const b = await syncingDevice(database, undefined, 2_000, slow);
    const bot = a.engine.newId();
    const chat = a.engine.newId();
    a.engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    await a.client.saveYou({ name: 'Ada', pronouns: '', persona: '' });
    await until(() => youName(b.engine) === 'Ada');
    const { turnId } = await b.client.sendTurn(chat, 'Hello from the phone.');
    await a.client.saveYou({ name: 'Renamed on the laptop', pronouns: '', persona: '' });
    await new Promise((r) => setTimeout(r, 800));
    expect(youName(b.engine)).toBe('Ada');
    release();
    await until(() => youName(b.engine) === 'Renamed on the laptop');
    // The reply names the turn it answers, whatever moved meanwhile.
    const started = b.engine.eventsAfter(0, 1_000).find((e) => e.kind === 'assistant_turn_started' && e.payload.includes(turnId))!;
    const finished = b.engine.eventsAfter(0, 1_000).find((e) => e.kind === 'assistant_turn' && e.payload.includes(turnId))!;
    expect(finished.cause_id).toBe(started.id);
    expect(JSON.parse(finished.payload).text).toBe('Mira begins to answer, and finishes.');
  });

  it('a passphrase set on one device asks the other for it; the right one opens the story there', async () => {
    const database = freshDatabaseName();
    const a = await syncingDevice(database);
    await a.client.setSyncPassphrase('correct horse battery staple');
    await a.client.saveYou({ name: 'Sealed Ada', pronouns: '', persona: '' });
    await until(() => a.statuses().some((s) => s.state === 'up-to-date' && s.encrypted));
    const onServer = await (await server.fetch(`${server.url}/${database}/_changes?include_docs=true`)).text();
    expect(onServer).not.toContain('Sealed Ada');

    const b = await syncingDevice(database);
    const asked = await until(() => b.statuses().find((s) => s.state === 'error'));
    expect(asked.detail).toMatch(/encrypted: enter its passphrase/);
    await b.client.setSyncPassphrase('wrong horse battery');
    await until(() => b.statuses().some((s) => /not the one the sync database was encrypted with/.test(s.detail ?? '')));
    expect(youName(b.engine)).toBeUndefined();
    await b.client.setSyncPassphrase('correct horse battery staple');
    await until(() => youName(b.engine) === 'Sealed Ada');
  });
});
