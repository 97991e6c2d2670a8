import { describe, expect, it } from 'vitest';
import { browsers, openStoryChat, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

describe('where a drawer value came from', () => {
  it('"Why?" lists the story’s and the player’s changes with links to their turns; "Undo this change" takes one back and says when a later one stands', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url, { drawerOpen: true });
    const drawer = page.getByTestId('story-drawer');
    const clock = () => page.getByTestId('fiction-time').textContent();
    await say(page, '"Shall we wait for the tide?"', 'demo model');
    // The reply's analysis moves the story's clock a minute.
    await expect.poll(clock, { timeout: 15_000 }).toBe('1 January 2026, 20:01');
    await drawer.getByRole('button', { name: '+1 hour' }).click();
    await expect.poll(clock, { timeout: 15_000 }).toMatch(/21:0\d$/);
    const hour = await clock();
    // The reply's analysis moves the clock on from the player's hour.
    await say(page, '"Now?"', 'demo model');
    await expect.poll(clock, { timeout: 15_000 }).not.toBe(hour);
    const after = await clock();

    await drawer.getByRole('button', { name: 'About time' }).click();
    await page.getByRole('menuitem', { name: 'Why?' }).click();
    const why = page.getByRole('dialog', { name: 'Why: time' });
    const entries = why.getByTestId('why-entry');
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(await entries.nth(0).textContent()).toMatch(/^set to 1 January 2026, 21:0\d by the story, at turn 5/);
    expect(await entries.nth(1).textContent()).toMatch(/^set to 1 January 2026, 21:0\d by you, after turn 3/);
    expect(await violations(page, 'the Why? dialog')).toEqual([]);

    // The player's hour taken back: the story's later step set the clock itself, so it stands, and the player is told.
    await entries.nth(1).getByRole('button', { name: 'Undo this change' }).click();
    await expect.poll(() => why.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Taken back. A later change set it again, so that value stands.');
    await expect.poll(() => entries.nth(1).textContent(), { timeout: 15_000 }).toContain('taken back');
    expect(await clock()).toBe(after);

    // The link opens the story at the turn that made the change.
    await entries.nth(0).getByRole('link', { name: 'turn 5' }).click();
    await expect.poll(() => why.count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.locator('.turn.found').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('.turn.found').textContent()).toContain('demo model');

    // "Undo this change" in the menu takes back the latest change in force: the story's step; the clock falls back past the undone hour.
    await drawer.getByRole('button', { name: 'About time' }).click();
    await page.getByRole('menuitem', { name: 'Undo this change' }).click();
    await expect.poll(() => drawer.getByRole('status').filter({ hasText: 'Taken back' }).textContent(), { timeout: 15_000 }).toContain('The changes after it stay.');
    await expect.poll(clock, { timeout: 15_000 }).toMatch(/20:0\d$/);
  });
});
