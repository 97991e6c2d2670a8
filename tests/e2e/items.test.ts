import { describe, expect, it } from 'vitest';
import { browsers, openStoryChat, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

describe('items', () => {
  it('the demo model notes what the player picks up; the player adds one, hands it over and marks another gone; "Why?" tells who did what', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url, { drawerOpen: true });
    const drawer = page.getByTestId('story-drawer');
    await say(page, '*I pick up the brass compass.*', 'demo model');
    const yours = drawer.getByRole('list', { name: 'What Ada has' });
    await expect.poll(() => yours.getByTestId('item').allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^brass compass.*where in hand/)]);

    const add = drawer.getByRole('form', { name: 'Add an item' });
    await add.getByLabel('Item').fill('coil of rope');
    await add.getByLabel('Who has it').selectOption({ label: 'Nobody' });
    await add.getByLabel('Where it is').fill('by the door');
    await add.getByRole('button', { name: 'Add' }).click();
    const lying = drawer.getByRole('list', { name: 'What lies about' });
    await expect.poll(() => lying.getByTestId('item').allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^coil of rope.*where by the door/)]);
    expect(await violations(page, 'the drawer with items')).toEqual([]);

    await drawer.getByLabel('Who has the brass compass').selectOption({ label: 'Mira' });
    await expect.poll(() => drawer.getByRole('list', { name: 'What Mira has' }).getByTestId('item').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => yours.count(), { timeout: 15_000 }).toBe(0);
    await drawer.getByRole('button', { name: 'Gone: coil of rope' }).click();
    await expect.poll(() => lying.count(), { timeout: 15_000 }).toBe(0);

    await drawer.getByRole('button', { name: 'About item “brass compass”' }).click();
    await page.getByRole('menuitem', { name: 'Why?' }).click();
    const entries = page.getByRole('dialog', { name: 'Why: item “brass compass”' }).getByTestId('why-entry');
    await expect.poll(() => entries.allTextContents(), { timeout: 15_000 }).toEqual([
      expect.stringMatching(/^now with Mira by you, after turn 3/),
      expect.stringMatching(/^began as “brass compass” by the story, at turn 3/),
    ]);
  });
});
