import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchBrowser, openTab, startApp } from '../tests/e2e/harness.ts';
import { openFromList, restoreStories } from './chat.bench.ts';
import { fmt, median, printTable } from './table.ts';

/** `BENCH_SCALE_SIZES=1000,10000` to run fewer. */
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const OPENS = 7;
const MB = 1024 * 1024;

/**
 * The JS heap of each of the page's workers, the tokenizer helper (a worker of the database
 * worker) included, read over the DevTools protocol: a worker has no `performance.memory`, and
 * `measureUserAgentSpecificMemory` needs cross-origin isolation. Playwright's CDP session cannot
 * address a child session, so this speaks the older, unflattened form: every command to a worker
 * is wrapped in `Target.sendMessageToTarget`, once per level.
 */
async function workerHeaps(cdp: CDPSession): Promise<Map<string, number>> {
  type Message = { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
  let nextId = 1;
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  const workers: { path: string[]; url: string }[] = [];
  /** A message from the worker at `path` (session ids, outermost first). */
  const received = (path: string[], message: Message) => {
    if (message.method === 'Target.attachedToTarget') {
      const params = message.params as { sessionId: string; targetInfo: { url: string } };
      workers.push({ path: [...path, params.sessionId], url: params.targetInfo.url });
    } else if (message.method === 'Target.receivedMessageFromTarget') {
      const params = message.params as { sessionId: string; message: string };
      received([...path, params.sessionId], JSON.parse(params.message) as Message);
    } else if (message.id !== undefined && path.length > 0) {
      waiting.get(message.id)?.(message.result ?? {});
    }
  };
  const send = (path: string[], method: string, params: object = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      let message = JSON.stringify({ id, method, params });
      for (const sessionId of [...path].reverse().slice(0, -1)) {
        message = JSON.stringify({ id: nextId++, method: 'Target.sendMessageToTarget', params: { sessionId, message } });
      }
      void cdp.send('Target.sendMessageToTarget' as never, { sessionId: path[0], message } as never);
    });
  cdp.on('Target.attachedToTarget' as never, ((e: { sessionId: string; targetInfo: { url: string } }) => workers.push({ path: [e.sessionId], url: e.targetInfo.url })) as never);
  cdp.on('Target.receivedMessageFromTarget' as never, ((e: { sessionId: string; message: string }) => received([e.sessionId], JSON.parse(e.message) as Message)) as never);
  await cdp.send('Target.setAutoAttach' as never, { autoAttach: true, waitForDebuggerOnStart: false, flatten: false } as never);
  await new Promise((r) => setTimeout(r, 300));
  // The workers' own workers: the database worker's tokenizer helper.
  for (const worker of [...workers]) void send(worker.path, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  await new Promise((r) => setTimeout(r, 300));
  const heaps = new Map<string, number>();
  for (const worker of workers) {
    const usage = await Promise.race([send(worker.path, 'Runtime.getHeapUsage'), new Promise<Record<string, unknown>>((r) => setTimeout(() => r({}), 2_000))]);
    const name = /\/([a-z]+)[.-][^/]*$/.exec(new URL(worker.url).pathname)?.[1] ?? worker.url;
    heaps.set(name, (usage.usedSize as number | undefined) ?? NaN);
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
    // Memory with the long chat on screen, after a collection, as a user reading it holds it (the
    // tokenizer helper starts once the tab has been quiet a moment).
    await page.waitForTimeout(3_000);
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
      [`${label} turns: tokenizer helper worker JS heap / the page's JS heap`, `${heaps.has('tokenizer') ? fmt(heaps.get('tokenizer')! / MB, 1) : 'not started'} / ${fmt(pageHeap / MB, 1)} MB`],
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
