import { afterEach, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { join } from 'node:path';
import { botList, createBot, freshProfile, launchBrowser, openTab, startApp } from './harness.ts';

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
  await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Kept offline']);
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
  await expect.poll(() => page.getByRole('heading', { name: 'Settings', exact: true }).isVisible(), { timeout: 15_000 }).toBe(true);
  await expect.poll(() => page.getByTestId('relay-state').textContent(), { timeout: 15_000 }).toMatch(/unreachable/);
});

it('runs in memory where the browser cannot store data, says nothing will be saved, asks before closing, and exports what was written to a window that can save', async () => {
  const app = await startApp();
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots?e2e-storage=memory`);
  expect(await page.evaluate(() => (globalThis as any).roleplayEngine.status().storage)).toBe('memory');
  const notice = page.locator('[data-banner="memory"]');
  expect(await notice.textContent()).toMatch(/Nothing will be saved/);
  await createBot(page, 'Ephemeral');
  await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Ephemeral']);
  await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toMatch(/not exported yet/);
  // Closing now makes the browser ask first.
  const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => void dialog.dismiss().then(() => resolve(dialog.type()))));
  await page.close({ runBeforeUnload: true });
  expect(await asked).toBe('beforeunload');
  expect(page.isClosed()).toBe(false);

  const download = page.waitForEvent('download');
  await notice.getByRole('button', { name: 'Export before closing' }).click();
  const file = join(freshProfile(), 'from-memory.jsonl.gz');
  await (await download).saveAs(file);
  await expect.poll(() => notice.textContent(), { timeout: 15_000 }).not.toMatch(/not exported yet/);
  // Exported: the window closes without asking.
  let askedAgain = false;
  page.once('dialog', (dialog) => void ((askedAgain = true), dialog.accept()));
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => page.isClosed(), { timeout: 15_000 }).toBe(true);
  expect(askedAgain).toBe(false);

  // The real database was never touched; the export restores there, with the bot.
  const normal = await openTab(context, `${app.url}/settings`);
  await normal.getByRole('button', { name: 'Export backup' }).waitFor({ timeout: 15_000 });
  await normal.locator('.backup-section input[type=file]').setInputFiles(file);
  await normal.getByRole('dialog', { name: 'Restore this backup?' }).getByRole('button', { name: 'Restore' }).click();
  await expect.poll(() => normal.getByTestId('backup-message').textContent(), { timeout: 20_000 }).toMatch(/Restored from/);
  await normal.goto(`${app.url}/bots`);
  await expect.poll(() => botList(normal).allTextContents(), { timeout: 15_000 }).toEqual(['Ephemeral']);
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
