import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { browsers, expectPolicyViolations, isPolicyViolation, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();

/** A page on another origin (another port of this machine) serving `html`. */
async function otherSite(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    // The browser keeps its connection alive; close() alone would wait for it.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('the Content-Security-Policy in the browser', () => {
  it('another site cannot frame the app: the frame stays empty and the app makes no call from it', async () => {
    expectPolicyViolations();
    const framing = await otherSite(`<!doctype html><iframe id="app" src="${app.url}/settings" width="600" height="400"></iframe>`);
    try {
      const { context } = await launchBrowser();
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (isPolicyViolation(message.text()) || /frame|X-Frame-Options/i.test(message.text())) refused.push(message.text());
      });
      const calls = app.logs.length;
      await page.goto(framing.url);
      await expect.poll(() => refused.join('\n'), { timeout: 15_000 }).toMatch(/frame-ancestors|X-Frame-Options/);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      // The frame holds the browser's error page, not the app.
      expect(frame?.url() ?? '').not.toContain('/settings');
      await page.waitForTimeout(1_000);
      expect(app.logs.slice(calls).filter((line) => /\/api\//.test(line))).toEqual([]);
    } finally {
      await framing.close();
    }
  });

  it('refuses markup strings, string code and scripts from elsewhere, in the page and in the database worker, and says so', async () => {
    expectPolicyViolations();
    const { context } = await launchBrowser();
    const seen: string[] = [];
    context.on('console', (message) => {
      if (isPolicyViolation(message.text())) seen.push(message.text());
    });
    const workerStarted = new Promise<import('playwright-core').Worker>((resolve) => context.once('page', (p) => p.once('worker', resolve)));
    const page = await openTab(context, `${app.url}/`);
    const attempts = await page.evaluate(() => {
      const attempt = (what: () => unknown) => {
        try {
          what();
          return 'done';
        } catch (error) {
          return (error as Error).name;
        }
      };
      return {
        innerHTML: attempt(() => (document.body.insertAdjacentHTML('beforeend', '<img src=x>'))),
        stringTimer: attempt(() => setTimeout('void 0' as unknown as () => void)),
        foreignWorker: attempt(() => new Worker('http://127.0.0.2:1/evil.js')),
      };
    });
    expect(attempts).toEqual({ innerHTML: 'TypeError', stringTimer: 'TypeError', foreignWorker: 'TypeError' });
    // The database worker is under the same policy, and its refusals reach the console too.
    const worker = page.workers()[0] ?? (await workerStarted);
    expect(await worker.evaluate(() => fetch('http://127.0.0.2:1/').then(() => 'fetched', () => 'refused'))).toBe('refused');
    await expect.poll(() => seen.join('\n'), { timeout: 15_000 }).toMatch(/connect-src/);
    expect(seen.join('\n')).toMatch(/insertAdjacentHTML/);
  });
});
