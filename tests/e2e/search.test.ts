import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { openStory } from '../support/story.ts';
import { browsers, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

/** A story of 70 exchanges made by the engine in Node, where only the 5th mentions the astrolabe. */
async function longStoryBackup() {
  const { engine, chat } = await openStory();
  for (let i = 1; i <= 70; i++) {
    const started = engine.turns.beginTurn(chat, i === 5 ? '"Where did you hide the brass astrolabe?"' : `"Line ${i}."`);
    engine.turns.finishTurn(started, { text: `Mira answers line ${i}.`, usage: null, truncated: false, reason: null, error: null });
  }
  return { backup: JSON.parse(JSON.stringify(engine.exportLog())), chat };
}

describe('search across chats', () => {
  it('finds a turn from the chat list and opens the chat at it, loading older pages until it is there', async () => {
    const { backup, chat } = await longStoryBackup();
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
    await page.goto(`${app.url}/chats`);

    const search = page.getByRole('searchbox', { name: 'Search all chats' });
    await search.fill('astrolab');
    const results = page.getByRole('list', { name: 'Search results' });
    await expect.poll(() => results.locator('li').count()).toBe(1);
    expect(await results.locator('mark').allTextContents()).toEqual(['astrolabe']);
    expect(await results.textContent()).toContain('Ada');
    await search.fill('nothing says this');
    await expect.poll(() => page.getByText('No turn in any chat says “nothing says this”.').isVisible()).toBe(true);

    await search.fill('brass astrolabe');
    await results.getByRole('link').click();
    await page.waitForURL(new RegExp(`/chats/${chat}\\?turn=\\d+`));
    const found = page.locator('.turn.found');
    await expect.poll(() => found.count(), { timeout: 15_000 }).toBe(1);
    expect(await found.textContent()).toContain('Where did you hide the brass astrolabe?');
    const inView = await found.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= innerHeight;
    });
    expect(inView).toBe(true);
  });
});
