import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { botList, browsers, createBot, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe('when the browser refuses to store more', () => {
  it('the change is not kept, every tab says why, nothing saved before is touched, and the next write works once there is room', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Saved before');
    const other = await openTab(context, `${app.url}/bots`);
    await expect.poll(() => botList(other).allTextContents()).toEqual(['Saved before']);

    // The origin's quota lowered to what it uses now: the database cannot grow.
    const cdp = await context.newCDPSession(page);
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url, quotaSize: usage });
    const refused = await page.evaluate(async () => {
      const client = (globalThis as unknown as { roleplayEngine: { engine: { saveBot(form: object, id: null): Promise<string> } } }).roleplayEngine;
      const form = (i: number) => ({ name: `Big ${i}`, persona: 'x'.repeat(7_000), voiceSamples: [], traits: [], backstory: 'y'.repeat(7_000), initialRelationship: '', kickoff: '' });
      for (let i = 0; i < 400; i++) {
        try {
          await client.engine.saveBot(form(i), null);
        } catch (error) {
          return { at: i, name: (error as Error).name, message: (error as Error).message };
        }
      }
      return null;
    });
    expect(refused).toMatchObject({ name: 'StorageError', message: expect.stringMatching(/^Your last change was not saved: .*Everything saved before is unchanged\.$/) });
    for (const tab of [page, other]) {
      await expect.poll(() => tab.locator('[data-banner="not-saved"]').textContent()).toMatch(/Your last change was not saved/);
    }
    await page.reload();
    // A reload starts a new leader, which takes more than poll's default second on a busy machine.
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toContain('Saved before');
    expect(await botList(page).allTextContents()).not.toContain(`Big ${refused!.at}`);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url });
    await createBot(page, 'After');
    await expect.poll(() => botList(other).allTextContents()).toContain('After');
    await expect.poll(() => other.locator('[data-banner="not-saved"]').count()).toBe(0);
  });
});
