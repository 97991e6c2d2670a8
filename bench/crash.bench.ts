import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, freshProfile, startApp, storedPageBytes, storyReady, waitForDatabase } from '../tests/e2e/harness.ts';
import { printTable } from './table.ts';
import { restoreStories } from './chat.bench.ts';
import { PAGE_BYTES } from '../src/worker/disk-layout.ts';

const RUNS = Number(process.env.BENCH_CRASH_RUNS ?? 20);
/** The pages of the builds before 1 KiB ones: what most players' databases are rewritten from. */
const OLD_PAGE_BYTES = 4096;
/** Kills during the once-only rewrite of an older database, each on a database of its own. */
const REWRITE_RUNS = Number(process.env.BENCH_CRASH_REWRITE_RUNS ?? 4);
const REWRITE_TURNS = 10_000;

/** Chromium as its own process group, so SIGKILL takes the whole browser at once, as a crash or a power cut would. */
async function launch(profile: string): Promise<{ child: ChildProcess; browser: Browser }> {
  const child = spawn(
    CHROMIUM,
    ['--headless=new', `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', 'about:blank'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`Chromium exited before it listened: ${text.slice(-500)}`)));
  });
  return { child, browser: await chromium.connectOverCDP(endpoint) };
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });

type Client = { engine: Record<string, (...args: unknown[]) => Promise<unknown>>; status(): { database: { kind: string } | null } };

/** Every event id in the log, as the app exports it. */
const logIds = (page: Page) =>
  page.evaluate(async () => {
    const client = (globalThis as unknown as { roleplayEngine: Client }).roleplayEngine;
    const log = (await client.engine.exportLog!()) as { events: { id: string }[] };
    return log.events.map((e) => e.id);
  });

/**
 * Crash safety, proven: the whole browser is SIGKILLed at a random moment while replies stream and
 * commands commit, then relaunched on the same profile, RUNS times. Every change the app had
 * acknowledged before the kill must be there after it; every database must open; replies cut off
 * mid-stream come back as interrupted (kept, not re-run).
 */
export async function benchCrash(): Promise<void> {
  const app = await startApp();
  const profile = freshProfile();
  let chatId = '';
  let lost = 0;
  let failedToOpen = 0;
  let interrupted = 0;
  let acknowledged = 0;
  for (let run = 0; run < RUNS; run++) {
    const { child, browser } = await launch(profile);
    const context = browser.contexts()[0]!;
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${app.url}/chats`);
    try {
      await waitForDatabase(page);
    } catch {
      failedToOpen++;
      await kill(child);
      continue;
    }
    if (!chatId) chatId = await storyReady(page);
    const before = new Set(await logIds(page));
    // Work: replies streaming and settings and bots committing, acknowledged ones noted as they come.
    await page.evaluate((chat) => {
      const client = (globalThis as unknown as { roleplayEngine: Client }).roleplayEngine;
      const acked: string[] = ((globalThis as unknown as { acked: string[] }).acked = []);
      void (async () => {
        for (let i = 0; ; i++) {
          await client.engine.sendTurn!(chat, `"Line ${i}, and the storm."`).catch(() => {});
          const bot = await client.engine.saveBot!({ name: `Crash ${Date.now()}`, persona: 'Here.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null).catch(() => null);
          if (typeof bot === 'string') acked.push(bot);
          await new Promise((r) => setTimeout(r, 80));
        }
      })();
    }, chatId);
    const ackedBots: string[] = [];
    const until = Date.now() + 300 + Math.random() * 2_500;
    while (Date.now() < until) {
      ackedBots.splice(0, ackedBots.length, ...((await page.evaluate(() => (globalThis as unknown as { acked: string[] }).acked).catch(() => ackedBots)) as string[]));
      await new Promise((r) => setTimeout(r, 40));
    }
    await kill(child);
    acknowledged += ackedBots.length;

    // Relaunch on the same profile: what was there, and every acknowledged change, must be there.
    const again = await launch(profile);
    const reopened = again.browser.contexts()[0]!.pages()[0] ?? (await again.browser.contexts()[0]!.newPage());
    await reopened.goto(`${app.url}/chats`);
    try {
      await waitForDatabase(reopened);
    } catch {
      failedToOpen++;
      await kill(again.child);
      continue;
    }
    const after = new Set(await logIds(reopened));
    for (const id of before) if (!after.has(id)) lost++;
    const bots = new Set(((await reopened.evaluate(() => (globalThis as unknown as { roleplayEngine: Client }).roleplayEngine.engine.listBots!())) as { id: string }[]).map((b) => b.id));
    for (const id of ackedBots) if (!bots.has(id)) lost++;
    // The new leader commits what the dead one left streaming, as interrupted.
    await reopened.waitForTimeout(1_000);
    const turns = (await reopened.evaluate((chat) => (globalThis as unknown as { roleplayEngine: Client }).roleplayEngine.engine.transcript!(chat, { limit: 400 }), chatId)) as {
      turns: { reason: string | null; status: string }[];
    };
    interrupted = turns.turns.filter((t) => t.reason === 'interrupted').length;
    await kill(again.child);
  }
  const rewrite = await crashDuringRewrite(app.url);
  await app.relay.close();
  printTable(`Crash safety: the whole browser SIGKILLed mid-work ${RUNS} times, relaunched on the same profile (Debian Chromium, OPFS)`, [
    [`the once-only rewrite of a ${REWRITE_TURNS.toLocaleString('en-US')}-turn ${OLD_PAGE_BYTES / 1024} KiB database, killed 0-150 ms after its bar showed, ${REWRITE_RUNS} times: events lost (must be 0)`, String(rewrite.lost)],
    ['  databases that failed to open after it (must be 0)', String(rewrite.failedToOpen)],
    [`  kills that came before the rewrite ended (the database reopened as it was, at ${OLD_PAGE_BYTES / 1024} KiB)`, `${rewrite.rolledBack} of ${REWRITE_RUNS}`],
    [`  the next start: rewritten to ${PAGE_BYTES / 1024} KiB, and how long that start took`, `${rewrite.rewritten} of ${REWRITE_RUNS}, ${rewrite.opens.map((ms) => `${ms} ms`).join(', ')}`],
    ['committed events lost (must be 0)', String(lost)],
    ['databases that failed to open (must be 0)', String(failedToOpen)],
    ['changes acknowledged in the seconds before a kill, each looked for after it', String(acknowledged)],
    ['replies recovered as interrupted (kept, not re-run)', String(interrupted)],
  ]);
}

/**
 * A database made as builds before 1 KiB pages made it, the browser killed while the app rewrites
 * it, then reopened twice: once leaving it as it is (every event must be there), once to rewrite it.
 */
async function crashDuringRewrite(baseUrl: string) {
  const result = { lost: 0, failedToOpen: 0, rolledBack: 0, rewritten: 0, opens: [] as number[] };
  const open = async (profile: string, path: string) => {
    const launched = await launch(profile);
    const page = launched.browser.contexts()[0]!.pages()[0] ?? (await launched.browser.contexts()[0]!.newPage());
    await page.goto(`${baseUrl}${path}`);
    return { ...launched, page };
  };
  for (let run = 0; run < REWRITE_RUNS; run++) {
    const profile = freshProfile();
    let { child, page } = await open(profile, `/chats?e2e-page-bytes=${OLD_PAGE_BYTES}`);
    await waitForDatabase(page);
    await restoreStories(page, REWRITE_TURNS);
    const ids = new Set(await logIds(page));
    await kill(child);
    ({ child, page } = await open(profile, '/chats'));
    await page.locator('[data-banner="rewrite"]').waitFor({ timeout: 60_000 });
    await new Promise((r) => setTimeout(r, Math.random() * 150));
    await kill(child);
    // The test hook leaves the database as it finds it: what the kill left is what opens.
    ({ child, page } = await open(profile, `/chats?e2e-page-bytes=${OLD_PAGE_BYTES}`));
    try {
      await waitForDatabase(page);
    } catch {
      result.failedToOpen++;
      await kill(child);
      continue;
    }
    const after = new Set(await logIds(page));
    for (const id of ids) if (!after.has(id)) result.lost++;
    if ((await storedPageBytes(page)) === OLD_PAGE_BYTES) result.rolledBack++;
    await kill(child);
    const started = Date.now();
    ({ child, page } = await open(profile, '/chats'));
    await waitForDatabase(page);
    result.opens.push(Date.now() - started);
    if ((await storedPageBytes(page)) === PAGE_BYTES && (await logIds(page)).length === ids.size) result.rewritten++;
    await kill(child);
  }
  return result;
}
