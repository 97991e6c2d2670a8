import { appendFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { DIST, freshProfile, launchBrowser, openTab, startApp } from './harness.ts';

let context: BrowserContext | undefined;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await context?.close();
  await stop?.();
  context = stop = undefined;
});

it('is installable: Chrome reports no installability errors and serves a real manifest and robots.txt', async () => {
  const app = await startApp();
  stop = () => app.relay.close();
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/chats`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] };
  expect(installabilityErrors).toEqual([]);
  const manifest = await (await fetch(`${app.url}/manifest.webmanifest`)).json();
  expect(manifest).toMatchObject({ name: 'Roleplay Engine', display: 'standalone' });
  expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(['192x192', '512x512', '512x512']);
  expect(await (await fetch(`${app.url}/robots.txt`)).text()).toMatch(/^User-agent/);
});

it('offers "Reload to update" when a new version is deployed, and reloading brings it in', async () => {
  const dist = join(freshProfile(), 'dist');
  cpSync(DIST, dist, { recursive: true });
  const app = await startApp({}, { dist });
  stop = () => app.relay.close();
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/chats`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  expect(await page.locator('[data-banner="update"]').count()).toBe(0);

  // A new deployment: the service worker script changes.
  appendFileSync(join(dist, 'sw.js'), '\n// deployed again\n');
  await page.reload();
  await expect.poll(() => page.locator('[data-banner="update"]').isVisible(), { timeout: 20_000 }).toBe(true);
  const waitingBefore = await page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting));
  expect(waitingBefore).toBe(true);

  await page.getByRole('button', { name: 'Reload to update' }).click();
  await expect
    .poll(async () => page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting)).catch(() => true), { timeout: 20_000 })
    .toBe(false);
  await expect.poll(() => page.locator('[data-banner="update"]').count(), { timeout: 20_000 }).toBe(0);
});
