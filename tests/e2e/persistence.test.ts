import { afterAll, beforeAll, expect, it } from 'vitest';
import { botList, createBot, launchBrowser, openTab, role, startApp } from './harness.ts';

let app: Awaited<ReturnType<typeof startApp>>;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.relay.close());

it('keeps what one tab wrote across a reload and a browser restart', async () => {
  const { context, profile } = await launchBrowser();
  const page = await openTab(context, `${app.url}/bots`);
  expect(await role(page)).toBe('leader');
  expect(await page.evaluate(() => (globalThis as any).roleplayEngine.status().storage)).toBe('opfs');
  await createBot(page, 'Mira');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Mira']);

  await page.reload();
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Mira']);
  await createBot(page, 'Tam');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Mira', 'Tam']);
  await context.close();

  const again = await launchBrowser(profile);
  const reopened = await openTab(again.context, `${app.url}/bots`);
  await expect.poll(() => botList(reopened).allTextContents()).toEqual(['Mira', 'Tam']);
  expect((reopened as any).errors).toEqual([]);
  await again.context.close();
});
