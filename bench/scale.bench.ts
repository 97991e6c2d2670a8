import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchBrowser, openTab, startApp } from '../tests/e2e/harness.ts';
import { openFromList, restoreStories } from './chat.bench.ts';
import { fmt, median, printTable } from './table.ts';

const SIZES = [1_000, 10_000, 100_000];
const OPENS = 7;
const MB = 1024 * 1024;

/**
 * The JS heap of each of the page's workers, read over the DevTools protocol (a worker has no
 * `performance.memory`, and `measureUserAgentSpecificMemory` needs cross-origin isolation).
 */
async function workerHeaps(cdp: CDPSession): Promise<Map<string, number>> {
  const sessions: { id: string; url: string }[] = [];
  const answers = new Map<number, (value: { usedSize?: number }) => void>();
  const attached = (e: { sessionId: string; targetInfo: { url: string } }) => sessions.push({ id: e.sessionId, url: e.targetInfo.url });
  const received = (e: { message: string }) => {
    const message = JSON.parse(e.message) as { id: number; result?: { usedSize: number } };
    answers.get(message.id)?.(message.result ?? {});
  };
  cdp.on('Target.attachedToTarget' as never, attached as never);
  cdp.on('Target.receivedMessageFromTarget' as never, received as never);
  await cdp.send('Target.setAutoAttach' as never, { autoAttach: true, waitForDebuggerOnStart: false, flatten: false } as never);
  await new Promise((r) => setTimeout(r, 300));
  const heaps = new Map<string, number>();
  let id = 1;
  for (const session of sessions) {
    const ask = id++;
    const usage = await new Promise<{ usedSize?: number }>((resolve) => {
      answers.set(ask, resolve);
      // The deprecated, unflattened form: playwright's CDP session cannot address a child session.
      void cdp.send('Target.sendMessageToTarget' as never, { sessionId: session.id, message: JSON.stringify({ id: ask, method: 'Runtime.getHeapUsage' }) } as never);
    });
    const name = /\/([a-z]+)[.-][^/]*$/.exec(new URL(session.url).pathname)?.[1] ?? session.url;
    heaps.set(name, usage.usedSize ?? NaN);
  }
  await cdp.send('Target.setAutoAttach' as never, { autoAttach: false, waitForDebuggerOnStart: false, flatten: false } as never);
  return heaps;
}

async function measure(url: string, turns: number): Promise<[string, string][]> {
  let context: BrowserContext | undefined;
  try {
    ({ context } = await launchBrowser());
    await context.addInitScript('globalThis.__name = (f) => f');
    const page: Page = await openTab(context, `${url}/chats`);
    const started = performance.now();
    const { longChat } = await restoreStories(page, turns);
    const restoreSeconds = (performance.now() - started) / 1000;
    const opens: number[] = [];
    for (let i = 0; i < OPENS; i++) opens.push(await openFromList(page, url, longChat));
    // Memory with the long chat on screen, after a collection, as a user reading it holds it.
    const cdp = await context.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heaps = await workerHeaps(cdp);
    const pageHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
    const sqlite = (await page.evaluate(() => (globalThis as any).roleplayEngine.admin.memoryUse())) as { wasmHeapBytes: number; pageCacheLimitBytes: number };
    const label = turns.toLocaleString('en-US');
    return [
      [`${label} turns: restore (built in Node, imported in the page)`, `${fmt(restoreSeconds, 1)} s`],
      [`${label} turns: open the chat, click -> transcript painted, median / max`, `${fmt(median(opens), 1)} / ${fmt(Math.max(...opens), 1)} ms`],
      [`${label} turns: database worker JS heap / SQLite wasm memory (page cache limit ${fmt(sqlite.pageCacheLimitBytes / MB, 1)} MB)`, `${fmt((heaps.get('db') ?? NaN) / MB, 1)} / ${fmt(sqlite.wasmHeapBytes / MB, 1)} MB`],
      [`${label} turns: tokenizer worker JS heap / the page's JS heap`, `${fmt((heaps.get('tokenizer') ?? NaN) / MB, 1)} / ${fmt(pageHeap / MB, 1)} MB`],
    ];
  } finally {
    await context?.close();
  }
}

/** How opening a chat and the leader's memory grow with the chat: 1,000, 10,000 and 100,000 turns. */
export async function benchScale(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
  }
  const app = await startApp();
  try {
    const rows: [string, string][] = [];
    for (const turns of SIZES) rows.push(...(await measure(app.url, turns)));
    printTable('Scale (Debian Chromium, headless, OPFS, production build): one long chat of n turns and a short one', rows);
  } finally {
    await app.relay.close();
  }
}
