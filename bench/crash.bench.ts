import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, freshProfile, startApp, storyReady, waitForDatabase } from '../tests/e2e/harness.ts';
import { printTable } from './table.ts';

const RUNS = Number(process.env.BENCH_CRASH_RUNS ?? 20);

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
  await app.relay.close();
  printTable(`Crash safety: the whole browser SIGKILLed mid-work ${RUNS} times, relaunched on the same profile (Debian Chromium, OPFS)`, [
    ['committed events lost (must be 0)', String(lost)],
    ['databases that failed to open (must be 0)', String(failedToOpen)],
    ['changes acknowledged in the seconds before a kill, each looked for after it', String(acknowledged)],
    ['replies recovered as interrupted (kept, not re-run)', String(interrupted)],
  ]);
}
