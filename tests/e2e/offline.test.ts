import { afterEach, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { botList, createBot, launchBrowser, openTab, startApp } from './harness.ts';

let context: BrowserContext | undefined;
afterEach(async () => {
  await context?.close();
  context = undefined;
});

it('after one online visit, loads and shows stored data with the relay gone, and says it is offline', async () => {
  const app = await startApp();
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots`);
  await createBot(page, 'Kept offline');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Kept offline']);
  // The service worker has installed and precached the app shell, the worker chunk and sqlite3.wasm.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });

  await app.relay.close();
  await page.reload();
  await expect.poll(() => botList(page).allTextContents(), { timeout: 20_000 }).toEqual(['Kept offline']);
  await expect.poll(() => page.locator('[data-banner="offline"]').isVisible(), { timeout: 20_000 }).toBe(true);

  // A deep link to another screen works offline too.
  await page.goto(`${app.url}/settings`);
  await expect.poll(() => page.getByRole('heading', { name: 'Settings', exact: true }).isVisible()).toBe(true);
  await expect.poll(() => page.getByTestId('relay-state').textContent()).toMatch(/unreachable/);
});

it('runs in memory, and says nothing will be saved, where the browser cannot store data', async () => {
  const app = await startApp();
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots?e2e-storage=memory`);
  expect(await page.evaluate(() => (globalThis as any).roleplayEngine.status().storage)).toBe('memory');
  expect(await page.locator('[data-banner="memory"]').textContent()).toMatch(/Nothing will be saved/);
  await createBot(page, 'Ephemeral');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Ephemeral']);
  // The real database, if there is one, was never touched: a normal visit finds no such bot.
  const normal = await openTab(context, `${app.url}/bots`);
  await expect.poll(() => normal.getByText('No bots yet.').isVisible()).toBe(true);
  await app.relay.close();
});

it('going offline and back, with two tabs, and the relay disappearing, raise no uncaught error in any page', async () => {
  const app = await startApp();
  ({ context } = await launchBrowser());
  const problems: string[] = [];
  const watch = (page: Awaited<ReturnType<typeof openTab>>) => {
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Uncaught/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
  };
  const first = await openTab(context, `${app.url}/bots`);
  watch(first);
  await createBot(first, 'Steady');
  const second = await openTab(context, `${app.url}/settings`);
  watch(second);
  await first.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });

  await context.setOffline(true);
  await expect.poll(() => second.locator('[data-banner="offline"]').isVisible(), { timeout: 20_000 }).toBe(true);
  await first.reload();
  await expect.poll(() => botList(first).allTextContents(), { timeout: 20_000 }).toEqual(['Steady']);
  const third = await openTab(context, `${app.url}/chats`);
  watch(third);
  await third.evaluate(() => dispatchEvent(new Event('online')));
  await second.waitForTimeout(2_000);
  await context.setOffline(false);
  await expect.poll(() => second.locator('[data-banner="offline"]').isVisible(), { timeout: 20_000 }).toBe(false);
  await app.relay.close();
  await first.reload();
  await expect.poll(() => botList(first).allTextContents(), { timeout: 20_000 }).toEqual(['Steady']);
  await second.waitForTimeout(2_000);
  expect(problems).toEqual([]);
});

it('says "Offline" while the relay is gone and stops saying it within seconds of its return', async () => {
  let app = await startApp();
  const port = app.port;
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots`);
  await app.relay.close();
  await page.evaluate(() => dispatchEvent(new Event('offline'))); // the browser noticing, as it does on a network change
  await expect.poll(() => page.locator('[data-banner="offline"]').isVisible(), { timeout: 20_000 }).toBe(true);
  app = await startApp({}, { port });
  const back = Date.now();
  await expect.poll(() => page.locator('[data-banner="offline"]').isVisible(), { timeout: 10_000 }).toBe(false);
  expect(Date.now() - back).toBeLessThan(5_000);
  await app.relay.close();
});
