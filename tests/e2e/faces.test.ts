import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { bmpPicture } from './pictures.ts';
import { browsers, exportLog, freshProfile, openTab, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

function bigPicture(): string {
  const path = join(freshProfile(), 'portrait.bmp');
  writeFileSync(path, bmpPicture());
  return path;
}

describe('faces', () => {
  it('a 10 MB picture is cropped and resized to 512 px in the browser, stored once, and shows in the bot list, the chat list, the transcript and the drawer; no picture shows initials', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    const botId = await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.listBots())[0].id);

    await page.goto(`${app.url}/bots/${botId}/edit`);
    const notAPicture = join(freshProfile(), 'notes.png');
    writeFileSync(notAPicture, 'just some text, not a picture');
    await page.locator('.picture-field input[type=file]').setInputFiles(notAPicture);
    await expect.poll(() => page.locator('.picture-field [role=alert]').textContent(), { timeout: 15_000 }).toMatch(/not a picture this browser can read/);

    await page.locator('.picture-field input[type=file]').setInputFiles(bigPicture());
    const preview = page.locator('.picture-field img.avatar');
    await expect.poll(() => preview.count(), { timeout: 20_000 }).toBe(1);
    expect(await preview.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([512, 512]);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/bots$/);

    const listed = page.getByRole('list', { name: 'Bots' }).locator('img.avatar');
    await expect.poll(() => listed.count(), { timeout: 15_000 }).toBe(1);
    const log = await exportLog(page);
    const images = log.events.filter((e) => e.kind === 'image_added');
    expect(images).toHaveLength(1);
    const stored = JSON.parse(typeof images[0]!.payload === 'string' ? images[0]!.payload : JSON.stringify(images[0]!.payload));
    expect(stored).toMatchObject({ mime: 'image/webp', width: 512, height: 512 });
    expect(stored.data.length).toBeLessThan(200_000);

    await page.goto(`${app.url}/chats`);
    await expect.poll(() => page.getByRole('list', { name: 'Chats' }).locator('img.avatar').count(), { timeout: 15_000 }).toBe(1);

    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(() => page.locator('.turn.assistant > img.avatar.portrait').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('story-drawer').locator('img.avatar').count(), { timeout: 15_000 }).toBe(1);
    // You have no picture: your initials, on your name's colour.
    await expect.poll(() => page.getByTestId('story-drawer').locator('.avatar.generated').first().textContent(), { timeout: 15_000 }).toBe('AD');

    // The same picture chosen again is not stored twice.
    await page.goto(`${app.url}/settings`);
    await page.locator('.picture-field input[type=file]').setInputFiles(bigPicture());
    await expect.poll(() => page.locator('.picture-field img.avatar').count(), { timeout: 20_000 }).toBe(1);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await exportLog(page)).events.filter((e) => e.kind === 'image_added').length, { timeout: 15_000 }).toBe(1);
  });
});
