import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { launchBrowser, openTab, startApp } from '../tests/e2e/harness.ts';
import { defaultKickoff } from '../src/engine/kickoff/schema.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { couchDatabase, relayGenerations, type Fetch } from '../src/engine/sync/couch.ts';
import { createReplicator } from '../src/engine/sync/replicator.ts';
import { SYNC_TOPIC } from '../src/engine/leader/stream.ts';
import { freshDatabaseName, startCouch } from '../tests/support/couch-server.ts';
import { draft } from '../tests/support/fixtures.ts';
import { narratorOnly, testLeader } from '../tests/support/leader.ts';
import { startRelay } from '../tests/support/relay-harness.ts';
import { scriptedLlm } from '../tests/support/scripted-llm.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { fmt, median, percentile, printTable } from './table.ts';

const TURNS = Number(process.env.BENCH_SYNC_TURNS ?? 10_000);
const LIVE_RUNS = 40;

/**
 * Sync through the relay's /sync/ path to an in-memory CouchDB-compatible server (express-pouchdb),
 * in Node: a story of 10,000 turns (each reply analysed: a feeling, a memory) pushed from one
 * device and pulled whole onto a fresh one; then the time from a write on one device to its rows
 * on the other while both are online (long-poll). The browser adds OPFS commits to the pull.
 */
export async function benchSync(): Promise<void> {
  // On disk (LevelDB, as pouchdb-server keeps it) unless BENCH_SYNC_MEMORY=1.
  const onDisk = process.env.BENCH_SYNC_MEMORY !== '1';
  const directory = onDisk ? mkdtempSync(join(tmpdir(), 'rpe-bench-couch-')) : undefined;
  const couch = await startCouch(directory ? { directory } : {});
  const relay = await startRelay({ SYNC_COUCHDB_URL: couch.url, SYNC_DATABASE: freshDatabaseName() });
  const remote = `${relay.url}/sync`;
  // Bytes of the answers, counted while `counting` is set.
  let counting = false;
  let received = 0;
  const viaRelay: Fetch = async (url, init) => {
    const response = await fetch(url, init);
    if (!counting) return response;
    const body = await response.text();
    received += Buffer.byteLength(body);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  try {
    const a = await openTestEngine({ now: Date.now });
    a.engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
    const bot = a.engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null);
    const chat = a.engine.startChat(bot, defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 1, 20)));
    for (let i = 0; i < TURNS; i += 400) {
      const drafts: EventDraft[] = [];
      for (let j = i; j < Math.min(TURNS, i + 400); j += 2) {
        const turnId = a.engine.newId();
        drafts.push(
          draft.userTurn(chat, a.engine.newId(), `"Turn ${j}, the storm and the lantern."`),
          draft.assistantStarted(chat, turnId, bot),
          { ...draft.assistantTurn(chat, turnId, bot, 'The storm broke over the harbour while Mira held the lantern high, and the crew sang.'), causeDraft: drafts.length + 1 },
          { ...draft.edge(chat, bot, 'you', { affinityDelta: 1, facts: [`fact ${j}`] }), causeDraft: drafts.length + 2 },
          { ...draft.memory(chat, a.engine.newId(), bot, { summary: `Turn ${j}: the storm and the lantern.` }), causeDraft: drafts.length + 2 },
        );
      }
      a.engine.append(drafts);
    }
    const events = a.engine.eventsAfter(0, 10_000_000).length;
    const replicator = (engine: typeof a.engine) =>
      createReplicator({ couch: couchDatabase(remote, viaRelay), remote, log: engine.sync, deviceId: () => engine.identify().dbId });
    const pushStarted = performance.now();
    const sender = replicator(a.engine);
    await sender.prepare();
    await sender.push();
    const pushMs = performance.now() - pushStarted;
    // The device that pushed passes its own events on the server's changes: ids, not documents.
    counting = true;
    const echoStarted = performance.now();
    await sender.pull();
    const echoMs = performance.now() - echoStarted;
    const echoBytes = received;
    counting = false;

    const b = await openTestEngine({ now: Date.now });
    let pages = 0;
    const pullStarted = performance.now();
    const pulled = await createReplicator({ couch: couchDatabase(remote, viaRelay), remote, log: b.engine.sync, deviceId: () => b.engine.identify().dbId, progress: () => pages++ }).pull();
    const pullMs = performance.now() - pullStarted;
    // What a pull with documents receives (what the pushing device used to read back), counted on
    // another fresh device, untimed: reading each answer to count it slows the pull.
    received = 0;
    counting = true;
    await createReplicator({ couch: couchDatabase(remote, viaRelay), remote, log: (await openTestEngine({ now: Date.now })).engine.sync, deviceId: () => 'counting' }).pull();
    counting = false;
    const pullBytes = received;
    const turnsOnB = b.db.get<{ n: number }>('SELECT count(*) AS n FROM transcript WHERE chat_id = ?', [chat])!.n;

    // A phone whose player writes in the chat after the first page, while the rest still arrives
    // (the Send the app holds; "Send now anyway" writes it like this): the pages after it are held
    // back and merged in one go at the end, where each used to replay the chat whole.
    const c = await openTestEngine({ now: Date.now });
    let wrote = false;
    const writingStarted = performance.now();
    await createReplicator({
      couch: couchDatabase(remote, viaRelay),
      remote,
      log: c.engine.sync,
      deviceId: () => c.engine.identify().dbId,
      progress: (n) => {
        if (wrote || n === 0) return;
        c.engine.append([draft.userTurn(chat, c.engine.newId(), '"Are we there yet?"')]);
        wrote = true;
      },
    }).pull();
    const writingMs = performance.now() - writingStarted;
    const lastLine = c.db.get<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1", [chat])?.text;

    // Live: two leaders, each long-polling; a write on one until its row is on the other.
    const leader = async (engine: typeof a.engine) => {
      const device = testLeader(engine, narratorOnly(scriptedLlm().client), { sync: { couch: couchDatabase(remote, viaRelay), remote } });
      device.leader.start();
      return device;
    };
    const laptop = await leader(a.engine);
    const phone = await leader(b.engine);
    const upToDate = (d: Awaited<ReturnType<typeof leader>>) => d.events.some((e) => e.type === 'publish' && e.topic === SYNC_TOPIC && (e.data as { state: string }).state === 'up-to-date');
    while (!upToDate(laptop) || !upToDate(phone)) await new Promise((r) => setTimeout(r, 20));
    const live: number[] = [];
    for (let i = 0; i < LIVE_RUNS; i++) {
      const name = `Ada ${i}`;
      const t = performance.now();
      await laptop.client.saveYou({ name, pronouns: '', persona: '' });
      while (b.engine.getYou()?.name !== name) await new Promise((r) => setTimeout(r, 2));
      live.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
    laptop.leader.stop();
    phone.leader.stop();

    // The same story onto a fresh browser: Chromium, OPFS, the app's own sync, through the relay.
    if (process.env.BENCH_SKIP_BUILD !== '1') {
      execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
    }
    const app = await startApp({ SYNC_COUCHDB_URL: couch.url, SYNC_DATABASE: relay.config.sync!.database.split('/').at(-1)! });
    const { context } = await launchBrowser();
    let browserMs = NaN;
    const bars: string[] = [];
    try {
      const page = await openTab(context, `${app.url}/settings`);
      const started = Date.now();
      for (;;) {
        // One cheap read per sample: the accessibility tree (getByRole) on every poll slowed the page itself.
        const { state, bar } = await page.evaluate(() => {
          const progress = document.querySelector<HTMLProgressElement>('progress[aria-label="Receiving the story"]');
          return { state: document.querySelector('[data-testid="sync-state"]')?.getAttribute('data-state') ?? null, bar: progress ? `${progress.value}/${progress.max}` : null };
        });
        if (bar && bars.at(-1) !== bar) bars.push(bar);
        if (state === 'up-to-date') break;
        if (Date.now() - started > 120_000) throw new Error('bench: the browser did not finish pulling in 2 minutes');
        await new Promise((r) => setTimeout(r, 100));
      }
      browserMs = Date.now() - started;
    } finally {
      await context.close();
      await app.relay.close();
    }

    // "Encrypt with a passphrase" on the whole story after it synced in the clear: every event
    // sealed anew into the database's next generation, then the plain one deleted.
    const sealing = createReplicator({
      couch: couchDatabase(remote, viaRelay),
      generations: relayGenerations(`${relay.url}/api/sync`, remote, viaRelay),
      remote,
      log: a.engine.sync,
      deviceId: () => a.engine.identify().dbId,
      passphrase: () => null,
      randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
    });
    const resealStarted = performance.now();
    await sealing.reseal('a bench passphrase');
    const resealMs = performance.now() - resealStarted;

    printTable(`Sync through the relay (Node, sqlite-wasm in memory, express-pouchdb ${onDisk ? 'on disk (LevelDB)' : 'in memory'})`, [
      ['story', `${fmt(TURNS)} turns, ${fmt(events)} events`],
      ['push it all from the first device (revs_diff + bulk_docs, pages of 500)', `${fmt(pushMs / 1000, 1)} s`],
      ['the pushing device then passes its own events on the server (ids only, no documents)', `${fmt(echoMs / 1000, 1)} s, ${fmt(echoBytes / 1e6, 1)} MB received`],
      ['pull it onto a fresh device, merged page by page with its checkpoint (target ≤ 10 s)', `${fmt(pullMs / 1000, 1)} s (${fmt(pulled)} events, ${pages} pages, ${fmt(turnsOnB)} turns shown, ${fmt(pullBytes / 1e6, 1)} MB received)`],
      ['the same pull with a line written in the chat after its first page', `${fmt(writingMs / 1000, 1)} s (last line: ${lastLine ?? 'none'})`],
      [`live: a write on one device → its row on the other, median / p95 / max of ${LIVE_RUNS} (target p95 ≤ 500 ms)`, `${fmt(median(live), 1)} / ${fmt(percentile(live, 0.95), 1)} / ${fmt(Math.max(...live), 1)} ms`],
      ['a fresh browser (Chromium, OPFS) pulls it: open Settings → "Up to date" (target ≤ 10 s)', `${fmt(browserMs / 1000, 1)} s`],
      ['  its progress bar as seen, sampled every 100 ms', bars.length ? `${bars.length} readings, ${bars[0]} … ${bars.at(-1)}` : 'not seen'],
      ['"Encrypt" it after it synced in the clear: sealed anew into a new database, the plain one deleted', `${fmt(resealMs / 1000, 1)} s`],
    ]);
  } finally {
    await relay.close();
    await couch.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  }
}
