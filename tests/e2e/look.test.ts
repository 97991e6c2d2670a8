import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browsers, openStoryChat, openTab, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

const theme = (page: Page) =>
  page.evaluate(() => ({
    theme: document.documentElement.dataset.theme,
    scheme: getComputedStyle(document.documentElement).colorScheme,
    background: getComputedStyle(document.documentElement).backgroundColor,
  }));


describe('a look of one’s own', () => {
  it('follows the system’s light or dark until a theme is chosen; the choice holds across a reload and reaches every tab', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => theme(page), { timeout: 15_000 }).toEqual({ theme: 'light', scheme: 'light', background: 'rgb(250, 249, 252)' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => theme(page), { timeout: 15_000 }).toEqual({ theme: 'dark', scheme: 'dark', background: 'rgb(22, 20, 29)' });

    const other = await openTab(context, `${app.url}/chats`);
    await page.goto(`${app.url}/settings`);
    const look = page.getByTestId('look-section');
    await look.getByRole('group', { name: 'Theme' }).getByLabel('Paper').check();
    await expect.poll(() => theme(page), { timeout: 15_000 }).toEqual({ theme: 'paper', scheme: 'light', background: 'rgb(243, 234, 213)' });
    await expect.poll(() => theme(other), { timeout: 15_000 }).toEqual({ theme: 'paper', scheme: 'light', background: 'rgb(243, 234, 213)' });
    await page.emulateMedia({ colorScheme: 'dark' }); // a chosen theme no longer follows the system
    await page.reload();
    await expect.poll(() => theme(page), { timeout: 15_000 }).toEqual({ theme: 'paper', scheme: 'light', background: 'rgb(243, 234, 213)' });
    expect(await page.getByTestId('look-section').getByRole('group', { name: 'Theme' }).getByLabel('Paper').isChecked()).toBe(true);
  });

  it('text size and story width change the story at once; the speaker’s portrait shows beside it on a wide screen, and can be hidden', async () => {
    const { context } = await launch();
    // The drawer closed: the story has the room for a portrait.
    const { page, chatId } = await openStoryChat(context, app.url, { before: (tab) => tab.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'closed')) });
    await page.setViewportSize({ width: 1400, height: 850 });
    await say(page, '"Hello."', 'demo model');
    const portrait = page.getByTestId('speaker-portrait');
    await expect.poll(() => portrait.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await portrait.locator('strong').textContent()).toBe('Mira');
    const width = () => page.locator('.turn').first().evaluate((el) => el.getBoundingClientRect().width);
    const before = await width();

    await page.goto(`${app.url}/settings`);
    const look = page.getByTestId('look-section');
    await look.getByRole('group', { name: 'Text size' }).getByLabel('Larger').check();
    await look.getByRole('group', { name: 'Story width' }).getByLabel('Narrow').check();
    await look.getByLabel(/portrait/).uncheck();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('20px');
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('.turn').first().waitFor();
    // Narrow at 20 px: 36rem is 720 px, less than the comfortable width at 16 px (46rem, 736 px).
    expect(await width()).toBe(720);
    expect(before).toBe(736);
    expect(await portrait.count()).toBe(0);

    // On a phone the portrait never shows, chosen or not.
    await page.goto(`${app.url}/settings`);
    await page.getByTestId('look-section').getByLabel(/portrait/).check();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('.turn').first().waitFor();
    expect(await portrait.isVisible()).toBe(false);
  });

  it('in the light and paper themes, the chat, its menus, the drawer, bots, lore and settings have no serious or critical axe violation', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url, { drawerOpen: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await say(page, '"Hello," *she waves*. ((brb))', 'demo model');
    await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
    const found: string[] = [];
    for (const chosen of ['light', 'paper', 'dark']) {
      await page.evaluate((chosen) => localStorage.setItem('roleplay-engine/look', JSON.stringify({ theme: chosen })), chosen);
      await page.goto(`${app.url}/chats/${chatId}`);
      await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
      await page.getByTestId('story-drawer').waitFor();
      found.push(...(await violations(page, `${chosen} chat`)));
      await page.locator('.turn').last().getByRole('button', { name: 'Message actions' }).click();
      await page.getByRole('menu').waitFor();
      found.push(...(await violations(page, `${chosen} message menu`)));
      await page.keyboard.press('Escape');
      for (const [path, ready] of [
        ['/chats', 'Chats'],
        ['/bots', 'Bots'],
        ['/lore', null],
        ['/settings', null],
      ] as const) {
        await page.goto(`${app.url}${path}`);
        if (ready) await page.getByRole('list', { name: ready }).waitFor();
        else await page.locator('h1').waitFor();
        found.push(...(await violations(page, `${chosen} ${path}`)));
      }
    }
    expect(found).toEqual([]);
  });
});
