import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openTab, role, startApp, storyReady } from '../tests/e2e/harness.ts';
import { fmt, median, printTable } from './table.ts';

type Rpe = { engine: Record<string, (...args: unknown[]) => Promise<unknown>>; onChange(listener: (n: unknown) => void): void };
declare const roleplayEngine: Rpe;

const ROUND_TRIPS = 200;
const NOTICES = 30;
const TAKEOVERS = 5;

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? NaN;

async function browser(): Promise<BrowserContext> {
  const { context } = await launchBrowser();
  // tsx names functions with a helper the page does not have; give the page a no-op one.
  await context.addInitScript('globalThis.__name = (f) => f');
  return context;
}

/** Per-call latency of `count` sequential engine calls, measured inside the page. */
function roundTrips(page: Page, method: 'saveYou' | 'listBots', count: number): Promise<number[]> {
  return page.evaluate(
    async ({ method, count }) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const start = performance.now();
        if (method === 'saveYou') {
          await roleplayEngine.engine.saveYou!({ name: `Ada ${i}`, pronouns: 'she/her', persona: 'bench' });
        } else {
          await roleplayEngine.engine.listBots!();
        }
        times.push(performance.now() - start);
      }
      return times;
    },
    { method, count },
  );
}

async function benchRoundTrips(url: string) {
  const context = await browser();
  const leader = await openTab(context, `${url}/chats`);
  const follower = await openTab(context, `${url}/chats`);
  if ((await role(leader)) !== 'leader') throw new Error('bench: first tab did not lead');
  const rows: [string, string][] = [];
  for (const [name, page] of [['leader tab', leader], ['follower tab', follower]] as const) {
    await roundTrips(page, 'saveYou', 20); // warm-up
    const writes = await roundTrips(page, 'saveYou', ROUND_TRIPS);
    const reads = await roundTrips(page, 'listBots', ROUND_TRIPS);
    rows.push([`command (saveYou + commit to OPFS), ${name}: median / p95`, `${fmt(median(writes), 2)} / ${fmt(p95(writes), 2)} ms`]);
    rows.push([`query (list bots), ${name}: median / p95`, `${fmt(median(reads), 2)} / ${fmt(p95(reads), 2)} ms`]);
  }
  await context.close();
  return rows;
}

async function benchNotices(url: string, others: number) {
  const context = await browser();
  const writer = await openTab(context, `${url}/chats`);
  const listeners: Page[] = [];
  for (let i = 0; i < others; i++) listeners.push(await openTab(context, `${url}/chats`));
  for (const page of listeners) {
    await page.evaluate(() => {
      const g = globalThis as unknown as { arrivals: number[] };
      g.arrivals = [];
      roleplayEngine.onChange(() => g.arrivals.push(performance.timeOrigin + performance.now()));
    });
  }
  const sent: number[] = [];
  for (let i = 0; i < NOTICES; i++) {
    sent.push(
      await writer.evaluate(async (i) => {
        const at = performance.timeOrigin + performance.now();
        await roleplayEngine.engine.saveYou!({ name: `N ${i}`, pronouns: '', persona: '' });
        return at;
      }, i),
    );
    await writer.waitForTimeout(20);
  }
  await writer.waitForTimeout(300);
  const latencies: number[] = [];
  for (const page of listeners) {
    const arrivals = await page.evaluate(() => (globalThis as unknown as { arrivals: number[] }).arrivals);
    arrivals.forEach((at, i) => latencies.push(at - sent[i]!));
    if (arrivals.length !== NOTICES) throw new Error(`bench: a tab got ${arrivals.length} of ${NOTICES} notices`);
  }
  await context.close();
  return latencies;
}

async function benchTakeover(url: string) {
  const times: number[] = [];
  for (let i = 0; i < TAKEOVERS; i++) {
    const context = await browser();
    const leader = await openTab(context, `${url}/chats`);
    const follower = await openTab(context, `${url}/chats`);
    await follower.evaluate(() => {
      const g = globalThis as unknown as { served: Promise<number> };
      g.served = Promise.resolve(0);
    });
    const closedAt = Date.now();
    await leader.close();
    // The follower's call is sent into the gap: it is served once the follower has taken over.
    const servedAt = await follower.evaluate(async () => {
      await roleplayEngine.engine.saveYou!({ name: 'After', pronouns: '', persona: '' });
      return performance.timeOrigin + performance.now();
    });
    if ((await role(follower)) !== 'leader') throw new Error('bench: the follower did not take over');
    times.push(servedAt - closedAt);
    await context.close();
  }
  return times;
}

const COLD_STARTS = 7;

/**
 * Cold start: a tab navigated to the chat list (the service worker warm, the database on OPFS),
 * from navigation start to the list on screen, its first chat a link to click; the tab before it
 * closed, so each start opens the database afresh.
 */
export async function benchColdStart(url: string, runs = COLD_STARTS): Promise<{ starts: number[]; ready: number[] }> {
  const context = await browser();
  await context.addInitScript(() => {
    const g = globalThis as unknown as { listAt?: number; readyAt?: number; roleplayEngine?: { status(): { database: { kind: string } | null } } };
    new MutationObserver((_, observer) => {
      if (document.querySelector('ul[aria-label="Chats"] a')) {
        g.listAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, childList: true });
    // The list paints before the database opens; when it answers is timed beside it.
    const ready = setInterval(() => {
      if (g.roleplayEngine?.status().database?.kind !== 'ready') return;
      g.readyAt = performance.now();
      clearInterval(ready);
    }, 2);
  });
  const first = await openTab(context, `${url}/chats`);
  await storyReady(first);
  // A first visit is led to Settings; with a story it opens on the list.
  await first.goto(`${url}/chats`);
  await first.locator('ul[aria-label="Chats"] a').first().waitFor();
  await first.close();
  const starts: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < runs; i++) {
    const page = await context.newPage();
    await page.goto(`${url}/chats`);
    await page.locator('ul[aria-label="Chats"] a').first().waitFor();
    await page.waitForFunction(() => (globalThis as unknown as { readyAt?: number }).readyAt !== undefined, undefined, { timeout: 30_000 });
    const at = await page.evaluate(() => {
      const g = globalThis as unknown as { listAt: number; readyAt: number };
      return { listAt: g.listAt, readyAt: g.readyAt };
    });
    starts.push(at.listAt);
    ready.push(at.readyAt);
    await page.close();
  }
  await context.close();
  return { starts, ready };
}

export async function benchBrowser(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
  }
  const app = await startApp();
  try {
    const rows = await benchRoundTrips(app.url);
    for (const others of [1, 4, 8]) {
      const latencies = await benchNotices(app.url, others);
      rows.push([`change notice to ${others} other tab(s), from the writer's call: median / p95`, `${fmt(median(latencies), 2)} / ${fmt(p95(latencies), 2)} ms`]);
    }
    const { starts, ready } = await benchColdStart(app.url);
    rows.push([`cold start: navigate (service worker warm) -> chat list on screen (${COLD_STARTS} runs): median / max`, `${fmt(median(starts))} / ${fmt(Math.max(...starts))} ms`]);
    rows.push([`cold start: navigate -> the database answering (${COLD_STARTS} runs): median / max`, `${fmt(median(ready))} / ${fmt(Math.max(...ready))} ms`]);
    const takeovers = await benchTakeover(app.url);
    rows.push([`leader closes -> follower's write served (${TAKEOVERS} runs): median / max`, `${fmt(median(takeovers))} / ${fmt(Math.max(...takeovers))} ms`]);
    printTable('Browser (Debian Chromium, headless, OPFS opfs-sahpool, production build)', rows);
  } finally {
    await app.relay.close();
  }
}
