import { describe, expect, it } from 'vitest';
import { browsers, openStoryChat, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

describe('fields of the player’s own', () => {
  it('a field added in the drawer is filled by the demo model, set by hand within its range (out of range refused, saying why), explained by "Why?" and saved on the bot', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url, { drawerOpen: true });
    const drawer = page.getByTestId('story-drawer');
    await drawer.getByRole('button', { name: 'Add a field…' }).click();
    const form = drawer.getByRole('form', { name: 'Add a field' });
    await form.getByLabel('Name').fill('Hunger');
    await form.getByLabel('What it means').fill('How hungry they are: 0 fed, 100 starving');
    await form.getByLabel('Type').selectOption('number');
    await form.getByLabel('Kept').selectOption('character');
    expect(await violations(page, 'the Add a field form')).toEqual([]);
    await form.getByRole('button', { name: 'Add field' }).click();
    const hunger = drawer.getByRole('list', { name: 'Hunger' }).getByTestId('field-value');
    await expect.poll(() => hunger.allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^Ada: not yet/), expect.stringMatching(/^Mira: not yet/)]);

    // The reply's one analysis call fills it: the demo model starts a number mid-range.
    await say(page, '"I could eat a horse."', 'demo model');
    await expect.poll(() => hunger.allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^Ada: 50/), expect.stringMatching(/^Mira: 50/)]);
    expect(await violations(page, 'the drawer with a field')).toEqual([]);

    await drawer.getByRole('button', { name: "Edit Ada's Hunger" }).click();
    const editor = drawer.getByRole('textbox', { name: "Ada's Hunger" });
    await editor.fill('140');
    await editor.press('Enter');
    await expect.poll(() => drawer.getByRole('alert').first().textContent(), { timeout: 15_000 }).toBe('Hunger must be from 0 to 100, not 140.');
    await editor.fill('20');
    await editor.press('Enter');
    await expect.poll(() => hunger.first().textContent(), { timeout: 15_000 }).toMatch(/^Ada: 20/);

    await drawer.getByRole('button', { name: "About Ada's Hunger" }).click();
    await page.getByRole('menuitem', { name: 'Why?' }).click();
    const entries = page.getByRole('dialog', { name: "Why: Ada's Hunger" }).getByTestId('why-entry');
    await expect.poll(() => entries.allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^set to 20 by you/), expect.stringMatching(/^set to 50 by the story, at turn 3/)]);
    await page.getByRole('button', { name: 'Close' }).click();

    await drawer.getByRole('button', { name: 'Save these fields on Mira' }).click();
    await page.getByRole('link', { name: 'Bots' }).first().click();
    await page.getByRole('link', { name: /Mira/ }).first().click();
    await expect.poll(() => page.getByRole('group', { name: 'Fields its chats start with' }).textContent(), { timeout: 15_000 }).toContain('Hunger (number 0–100, for each character)');
  });
});
