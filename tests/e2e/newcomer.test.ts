import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { launchBrowser, openTab, startApp } from './harness.ts';

let app: Awaited<ReturnType<typeof startApp>>;
let context: BrowserContext | undefined;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.relay.close());
afterEach(async () => {
  await context?.close();
  context = undefined;
});

describe('the first screens a newcomer meets', () => {
  it('Settings scrolls inside its column: the page never grows past the window, and reaching "Restore from backup…" keeps the shell in place', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/settings`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Export backup' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(800);
    await page.locator('.backup-section input[type=file]').focus();
    await page.mouse.wheel(0, 2_000);
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => [window.scrollY, document.querySelector('.rail')!.getBoundingClientRect().top])).toEqual([0, 0]);
  });
});
