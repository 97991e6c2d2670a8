import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { openStory } from '../support/story.ts';
import { browsers, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

afterEach(async () => {
  await context?.close();
  context = undefined;
});

/** A story of `exchanges` numbered exchanges, made by the engine in Node, restored in a page that then opens it. */
async function openNumberedStory(exchanges: number) {
  const { engine, chat } = await openStory();
  for (let i = 1; i <= exchanges; i++) {
    const started = engine.turns.beginTurn(chat, `"Line ${i}."`);
    engine.turns.finishTurn(started, { text: `Mira answers line ${i}.`, usage: null, truncated: false, reason: null, error: null });
  }
  const backup = JSON.parse(JSON.stringify(engine.exportLog()));
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/`);
  await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
  await page.goto(`${app.url}/chats/${chat}`);
  return page;
}

describe('a long transcript in pages', () => {
  it('keeps every turn on screen when the story goes on after earlier pages were loaded', async () => {
    const page = await openNumberedStory(40);
    const replies = () => page.locator('.turn.assistant .story-text').allTextContents();
    await expect.poll(async () => (await replies()).some((t) => t.includes('answers line 40.'))).toBe(true);
    // The chat opens on its latest turns; a click brings earlier ones, and the rest come as the
    // reader scrolls up. On a slow machine the pages near the top may all have come in before the
    // click lands, and the button is gone with nothing left to load: only then is a missed click fine.
    expect(await replies()).not.toContainEqual(expect.stringContaining('answers line 1.'));
    const earlier = page.getByRole('button', { name: 'Load earlier turns' });
    await earlier.click({ timeout: 15_000 }).catch(async (error: unknown) => {
      if ((await earlier.count()) > 0) throw error;
    });
    await expect
      .poll(async () => {
        await page.locator('.transcript').evaluate((el) => (el.scrollTop = 0));
        return (await replies()).some((t) => t.includes('answers line 1.'));
      })
      .toBe(true);

    for (let n = 0; n < 2; n++) {
      const before = await page.locator('.turn.assistant:not([data-status="streaming"])').count();
      await page.getByRole('textbox', { name: 'Message' }).fill(`"One more, ${n}."`);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('.turn.assistant:not([data-status="streaming"])').count(), { timeout: 20_000 }).toBe(before + 1);
    }
    // Every numbered reply once, in order: none fell between the loaded pages and the newest one.
    const numbered = (await replies()).flatMap((t) => /answers line (\d+)\./.exec(t)?.[1] ?? []).map(Number);
    expect(numbered).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const lines = (await page.locator('.turn.user .story-text').allTextContents()).filter((t) => /Line \d+\./.test(t));
    expect(lines).toHaveLength(40);
  });

  it('opens on the newest reply, fully in view once the page has settled', async () => {
    const page = await openNumberedStory(40);
    const below = () => page.locator('.transcript').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await expect.poll(async () => (await page.locator('.turn.assistant .story-text').last().textContent()) ?? '').toContain('answers line 40.');
    // The composer's buttons and the newest turn's footer arrive after the turns; the view follows.
    await page.waitForTimeout(1_000);
    expect(await below()).toBeLessThan(2);
    expect(await page.locator('.turn').count()).toBeLessThan(30);
  });
});
