import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browsers, lastReply, menuOffers, message, openStoryChat, say, servedApp } from './harness.ts';

const app = servedApp();
const launch = browsers();

/** The name of what has focus, as a screen reader would say it. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return 'body';
    return `${el.getAttribute('aria-label') ?? el.textContent?.trim()}@${el.closest('.turn')?.getAttribute('data-seq') ?? ''}`;
  });

describe('message actions', () => {
  it('at rest a message shows its speaker and words; every action is in its menu, and the latest reply keeps Regenerate at hand', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await say(page, '"Hello."', 'demo model');
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    // At rest: the only buttons on a message are its menu and, on the latest reply, Regenerate.
    const buttons = await page.locator('.turn').evaluateAll((turns) =>
      turns.map((turn) => [...turn.querySelectorAll('button')].map((b) => b.getAttribute('aria-label') ?? b.textContent?.trim())),
    );
    expect(buttons).toEqual([['Message actions'], ['Message actions'], ['Message actions', 'Regenerate']]);

    const opening = page.locator('.turn').first();
    expect(await menuOffers(opening.getByRole('button', { name: 'Message actions' }))).toEqual([
      'Copy', 'Edit', 'Why this reply?', 'Rewind to here', 'Branch from here', 'Delete',
    ]);
    const mine = page.locator('.turn.user').last();
    expect(await menuOffers(mine.getByRole('button', { name: 'Message actions' }))).toEqual(['Copy', 'Edit', 'Rewind to here', 'Branch from here', 'Delete']);
    expect(await menuOffers(lastReply(page).getByRole('button', { name: 'Message actions' }))).toEqual([
      'Copy', 'Edit', 'Regenerate', 'Continue', 'Why this reply?', 'Branch from here', 'Delete',
    ]);
  });

  it('opens from the keyboard and moves with the arrows; Esc closes it and gives focus back, as do the editor and the inspector it opens', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await say(page, '"Hello."', 'demo model');
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    const mine = page.locator('.turn.user').last();
    const seq = await mine.getAttribute('data-seq');
    const actions = mine.getByRole('button', { name: 'Message actions' });
    await actions.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Copy@');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Edit@');
    await page.keyboard.press('End');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Delete@');
    await page.keyboard.press('ArrowDown'); // wraps round
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Copy@');
    await page.keyboard.press('Escape');
    expect(await page.getByRole('menu').count()).toBe(0);
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe(`Message actions@${seq}`);

    // Edit, then Esc out of the editor: focus is back on the menu's button, not the page.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Edit@');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe(`Edit message@${seq}`);
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe(`Message actions@${seq}`);

    // The inspector, closed with Esc, does the same.
    const reply = lastReply(page);
    const replySeq = await reply.getAttribute('data-seq');
    await reply.getByRole('button', { name: 'Message actions' }).click();
    await page.getByRole('menuitem', { name: 'Why this reply?' }).click();
    await page.getByRole('dialog', { name: 'Why this reply' }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe(`Message actions@${replySeq}`);

    // Regenerate by keyboard: the button pressed goes with the old reply; focus follows the new one.
    await reply.getByRole('button', { name: 'Regenerate' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('version').textContent(), { timeout: 20_000 }).toBe('2/2');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toMatch(/^Regenerate@/);
  });

  it('opens on a right-click or a long press where the message was touched, and Copy copies its words', async () => {
    const { context } = await launch();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const { page } = await openStoryChat(context, app.url);
    await say(page, '"Hello," *she waves*.', 'demo model');
    const mine = page.locator('.turn.user').last();
    await mine.locator('.story-text').click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Message actions' });
    await menu.waitFor();
    await menu.getByRole('menuitem', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 15_000 }).toBe('"Hello," *she waves*.');
    await expect.poll(() => mine.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Copied');

    // A finger resting on a message (a touch screen sends no right-click for it on every phone).
    const box = (await lastReply(page).locator('.story-text').boundingBox())!;
    await lastReply(page).evaluate((turn, at) => {
      turn.dispatchEvent(new PointerEvent('pointerdown', { pointerType: 'touch', clientX: at.x, clientY: at.y, bubbles: true }));
    }, { x: box.x + 20, y: box.y + 10 });
    await menu.waitFor({ timeout: 15_000 });
    expect(await menu.getByRole('menuitem').first().textContent()).toBe('Copy');
    await page.keyboard.press('Escape');
    // A finger that moves is scrolling, not pressing.
    await lastReply(page).evaluate((turn, at) => {
      turn.dispatchEvent(new PointerEvent('pointerdown', { pointerType: 'touch', clientX: at.x, clientY: at.y, bubbles: true }));
      turn.dispatchEvent(new PointerEvent('pointermove', { pointerType: 'touch', clientX: at.x, clientY: at.y + 40, bubbles: true }));
    }, { x: box.x + 20, y: box.y + 10 });
    await page.waitForTimeout(1_200);
    expect(await menu.count()).toBe(0);
  });

  it('the composer keeps its other ways to reply behind one button, and a "Skip to story" link leads past the navigation', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await message(page).waitFor();
    // The first stop of the page, before the navigation.
    const first = await page.evaluate(() => {
      const el = document.querySelector<HTMLElement>('a[href], button:not(:disabled), textarea, input, [tabindex="0"]');
      return el?.textContent;
    });
    expect(first).toBe('Skip to story');
    await page.getByRole('link', { name: 'Skip to story' }).focus();
    expect(await page.getByRole('link', { name: 'Skip to story' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), { timeout: 15_000 }).toBe('Story@');
    await say(page, '"Hello."', 'demo model');
    expect(await menuOffers(page.getByRole('button', { name: 'More ways to reply' }))).toEqual(['Impersonate', 'Continue', 'Regenerate', "Director's note"]);
  });
});
