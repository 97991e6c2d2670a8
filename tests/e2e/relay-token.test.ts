import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { exportLog, launchBrowser, openTab, startApp, storyReady } from './harness.ts';

const TOKEN = 'a-relay-token-of-some-length';
let app: Awaited<ReturnType<typeof startApp>>;
let context: BrowserContext | undefined;
beforeAll(async () => {
  app = await startApp({ RELAY_TOKEN: TOKEN });
});
afterAll(() => app.relay.close());
afterEach(async () => {
  await context?.close();
  context = undefined;
});

it('a relay started with RELAY_TOKEN asks for it; entered in Settings, it is sent on every call and never stored with the stories', async () => {
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/chats`);
  const banner = page.locator('[data-banner="needs-token"]');
  await expect.poll(() => banner.textContent(), { timeout: 20_000 }).toMatch(/This relay needs a token\. Enter it in Settings/);

  await banner.getByRole('link', { name: 'Enter it in Settings' }).click();
  const field = page.getByLabel('Relay token');
  await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
  await field.fill('a-wrong-token-of-some-length');
  await page.getByRole('button', { name: 'Save token' }).click();
  await expect.poll(() => banner.textContent()).toMatch(/refused this browser’s token/);
  await field.fill(TOKEN);
  await page.getByRole('button', { name: 'Save token' }).click();
  await expect.poll(() => banner.count()).toBe(0);
  await expect.poll(() => page.getByTestId('relay-state').textContent()).toMatch(/Relay online/);

  // The model calls the leader tab's worker makes carry it too: a reply comes back.
  const chatId = await storyReady(page);
  await page.goto(`${app.url}/chats/${chatId}`);
  await page.getByRole('textbox', { name: 'Message' }).fill('"Anyone there?"');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
  expect(await page.locator('[data-banner="reply-problem"]').count()).toBe(0);

  // Never in the log, a backup or an export.
  expect(JSON.stringify(await exportLog(page))).not.toContain(TOKEN);
  const backup = await page.evaluate(async () => {
    const blob: Blob = await (globalThis as any).roleplayEngine.admin.backupFile();
    return [...new Uint8Array(await blob.arrayBuffer())];
  });
  expect(gunzipSync(Buffer.from(backup)).toString('utf8')).not.toContain(TOKEN);
});
