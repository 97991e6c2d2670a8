import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { openStory } from '../support/story.ts';
import { browsers, messageAction, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

afterEach(async () => {
  await context?.close();
  context = undefined;
});

/**
 * A story of `exchanges` numbered exchanges, made by the engine in Node, restored in a page that
 * then opens it. `dayOf(i)`: the day (from 1 January 2026) exchange i was played on.
 */
async function openNumberedStory(exchanges: number, dayOf: (exchange: number) => number = () => 0) {
  let now = Date.UTC(2026, 0, 1, 12);
  const { engine, chat } = await openStory({ now: () => now++ });
  for (let i = 1; i <= exchanges; i++) {
    now = Math.max(now, Date.UTC(2026, 0, 1 + dayOf(i), 12));
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
    await expect.poll(async () => (await replies()).some((t) => t.includes('answers line 40.')), { timeout: 15_000 }).toBe(true);
    // The chat opens on its latest turns; earlier ones come a page at a time, as a reader scrolling
    // up line by line has them: the held pages stay joined to the newest one.
    expect(await replies()).not.toContainEqual(expect.stringContaining('answers line 1.'));
    const earlier = page.getByRole('button', { name: 'Load earlier turns' });
    await expect
      .poll(
        async () => {
          if ((await earlier.count()) > 0) await earlier.click({ timeout: 15_000 }).catch(() => undefined);
          return (await replies()).some((t) => t.includes('answers line 1.'));
        },
        { timeout: 15_000 },
      )
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
    await expect.poll(async () => (await page.locator('.turn.assistant .story-text').last().textContent()) ?? '', { timeout: 15_000 }).toContain('answers line 40.');
    // The composer's buttons and the newest turn's footer arrive after the turns; the view follows.
    await page.waitForTimeout(1_000);
    expect(await below()).toBeLessThan(2);
    // The first frame draws the newest rows; the rest of the first page follows, above the view.
    const held = await page.locator('.turn').count();
    expect(held).toBeGreaterThanOrEqual(20);
    expect(held).toBeLessThan(30);
  });

  it('holds a bounded window however far the reader scrolls, and the jumps land where they say', async () => {
    // 300 exchanges over three days of real time: 601 turns, four times what the page holds.
    const page = await openNumberedStory(300, (i) => Math.floor((i - 1) / 100));
    const transcript = page.locator('.transcript');
    const numbersShown = (kind: 'user' | 'assistant') =>
      page.locator(`.turn.${kind} .story-text`).evaluateAll((els) => els.flatMap((el) => /(?:Line|answers line) (\d+)\./.exec(el.textContent ?? '')?.[1] ?? []).map(Number));
    /** The numbered lines of the player's wholly or partly on screen. */
    const linesInView = () =>
      transcript.evaluate((scroller) => {
        const view = scroller.getBoundingClientRect();
        return [...scroller.querySelectorAll('.turn.user')]
          .filter((turn) => turn.getBoundingClientRect().bottom > view.top && turn.getBoundingClientRect().top < view.bottom)
          .flatMap((turn) => /Line (\d+)\./.exec(turn.textContent ?? '')?.[1] ?? [])
          .map(Number);
      });
    await expect.poll(async () => (await numbersShown('assistant')).at(-1), { timeout: 15_000 }).toBe(300);

    await page.getByRole('button', { name: 'Jump to the start' }).click();
    await expect.poll(linesInView, { timeout: 15_000 }).toContain(1);

    // Down through the whole story a screen at a time, waiting at each step for what is there to
    // show: every line passes by once, in order, and the page never holds more than its window.
    const seen: number[] = [];
    let mostHeld = 0;
    for (let step = 0; step < 2_000 && seen.at(-1) !== 300; step++) {
      await expect
        .poll(
          () =>
            transcript.evaluate((scroller) => {
              // The rows held cover the view: no space standing for turns not yet there is in it.
              const view = scroller.getBoundingClientRect();
              return [...scroller.querySelectorAll('.transcript-space')].every((space) => {
                const box = space.getBoundingClientRect();
                return box.height < 1 || box.bottom <= view.top + 1 || box.top >= view.bottom - 1;
              });
            }),
          { timeout: 15_000 },
        )
        .toBe(true);
      for (const line of await linesInView()) if (line > (seen.at(-1) ?? 0)) seen.push(line);
      mostHeld = Math.max(mostHeld, await page.locator('.turn').count());
      await transcript.evaluate((scroller) => (scroller.scrollTop += scroller.clientHeight * 0.8));
    }
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(mostHeld).toBeLessThanOrEqual(150);
    expect(mostHeld).toBeGreaterThan(20);

    // A date of real time: the first turn played on or after it.
    await page.getByRole('button', { name: 'Jump to a date' }).click();
    const dialog = page.getByRole('dialog', { name: 'Jump to a date' });
    await dialog.getByRole('radio', { name: 'Real time' }).check();
    await dialog.getByLabel('Date').fill('2026-01-02');
    await dialog.getByRole('button', { name: 'Go' }).click();
    await expect.poll(async () => (await linesInView())[0], { timeout: 15_000 }).toBe(101);
    expect(await page.locator('.turn').count()).toBeLessThanOrEqual(150);

    // Dragged to the top of the scrollbar: the first turns, at once, not every page on the way.
    await transcript.evaluate((scroller) => (scroller.scrollTop = 0));
    await expect.poll(linesInView, { timeout: 15_000 }).toContain(1);

    // Back to the latest, and a reply written while the reader was away takes the view to it.
    await page.getByRole('button', { name: 'Jump to the latest' }).click();
    await expect.poll(async () => (await linesInView()).at(-1), { timeout: 15_000 }).toBe(300);
    await page.getByRole('button', { name: 'Jump to the start' }).click();
    await expect.poll(linesInView, { timeout: 15_000 }).toContain(1);
    await page.getByRole('textbox', { name: 'Message' }).fill('"Line 301."');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await linesInView()).at(-1), { timeout: 20_000 }).toBe(301);
    await expect.poll(() => page.getByRole('button', { name: 'Jump to the latest' }).count(), { timeout: 15_000 }).toBe(0);
  });

  it('keeps the reader where they were when a turn far back is edited or deleted', async () => {
    const page = await openNumberedStory(120);
    const transcript = page.locator('.transcript');
    const linesInView = () =>
      transcript.evaluate((scroller) => {
        const view = scroller.getBoundingClientRect();
        return [...scroller.querySelectorAll('.turn.user')]
          .filter((turn) => turn.getBoundingClientRect().bottom > view.top && turn.getBoundingClientRect().top < view.bottom)
          .map((turn) => turn.querySelector('.story-text')?.textContent ?? '');
      });
    await expect.poll(() => page.locator('.turn.assistant').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Jump to the start' }).click();
    await expect.poll(linesInView, { timeout: 15_000 }).toContain('"Line 2."');

    const second = page.locator('.turn.user').filter({ hasText: '"Line 2."' });
    await messageAction(second, 'Edit');
    await page.getByRole('textbox', { name: 'Edit message' }).fill('"Line 2, said again."');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The edit rebuilds the story's tables: the turns held are read again, in place.
    await expect.poll(linesInView, { timeout: 15_000 }).toContain('"Line 2, said again."');
    expect(await linesInView()).toContain('"Line 1."');
    expect(await page.getByRole('button', { name: 'Jump to the latest' }).count()).toBe(1);

    // A message deleted there is no rebuild, but the turns held are read again all the same.
    await messageAction(page.locator('.turn.user').filter({ hasText: '"Line 3."' }), 'Delete');
    await expect.poll(() => page.getByTestId('deleted-stub').count(), { timeout: 15_000 }).toBe(1);
    expect(await linesInView()).toContain('"Line 1."');
  });
});
