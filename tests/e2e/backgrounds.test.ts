import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { bmpPicture } from './pictures.ts';
import { browsers, chatAction, exportLog, freshProfile, openStoryChat, openTab, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

const file = (name: string, bytes: Uint8Array | Buffer) => {
  const path = join(freshProfile(), name);
  writeFileSync(path, bytes);
  return path;
};

/** What the story stands on: the background's hash, its picture's size and its veil's opacity; null when there is none. */
const backdrop = (page: Page) =>
  page.evaluate(() => {
    const stage = document.querySelector<HTMLElement>('[data-testid="chat-background"]');
    const img = stage?.querySelector('img');
    if (!stage || !img?.complete || !img.naturalWidth) return null;
    return { hash: stage.dataset.hash, size: [img.naturalWidth, img.naturalHeight], veil: getComputedStyle(stage, '::after').opacity };
  });

describe('chat backgrounds', () => {
  it('a card’s own background shows, dimmed, behind its chats; a chat picks its own, none, or the bot’s again; Look turns them off', async () => {
    const { context } = await launch();
    const page = await openTab(context, `${app.url}/`);
    await page.evaluate(() => (globalThis as any).roleplayEngine.engine.saveYou({ name: 'Ada', pronouns: '', persona: '' }));
    // A CHARX card whose background is a 2000x1700 picture (10 MB): stored fitted to 1920 px.
    const card = {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Sable',
        description: 'A forest warden.',
        first_mes: 'The pines hush as you arrive.',
        scenario: 'A forest at dusk.',
        assets: [{ type: 'background', uri: 'embeded://assets/background/images/forest.bmp', name: 'main', ext: 'bmp' }],
      },
    };
    const charx = zipSync({ 'card.json': strToU8(JSON.stringify(card)), 'assets/background/images/forest.bmp': new Uint8Array(bmpPicture()) });
    await page.goto(`${app.url}/bots`);
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(file('sable.charx', charx));
    await expect.poll(() => page.getByTestId('card-preview').textContent(), { timeout: 15_000 }).toMatch(/a background picture/);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('imported-toast').textContent(), { timeout: 15_000 }).toContain('Sable imported.');
    const images = (await exportLog(page)).events.filter((e) => e.kind === 'image_added').map((e) => JSON.parse(typeof e.payload === 'string' ? e.payload : JSON.stringify(e.payload)));
    expect(images.map((i) => [i.mime, i.width, i.height])).toEqual([['image/webp', 1920, 1632]]);

    await page.getByTestId('imported-toast').getByRole('link', { name: 'Start a chat' }).click();
    await page.getByRole('button', { name: 'Start the story' }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    await expect.poll(() => backdrop(page), { timeout: 15_000 }).toEqual({ hash: images[0].hash, size: [1920, 1632], veil: '0.78' });
    // The story stands over it: what is under a message is the message, and the text keeps its contrast.
    const onTop = await page.locator('.turn.assistant .story-text').last().evaluate((el) => {
      const box = el.getBoundingClientRect();
      return el.contains(document.elementFromPoint(box.left + 5, box.top + 5));
    });
    expect(onTop).toBe(true);
    expect(await violations(page, 'chat with a background')).toEqual([]);

    await chatAction(page, 'No background');
    await expect.poll(() => page.getByTestId('chat-background').count(), { timeout: 15_000 }).toBe(0);
    await chatAction(page, 'Use the bot’s background');
    await expect.poll(() => backdrop(page), { timeout: 15_000 }).toMatchObject({ hash: images[0].hash });

    // A picture of the player's own, for this chat only.
    const chooser = page.waitForEvent('filechooser');
    await chatAction(page, 'Choose a background…');
    await (await chooser).setFiles(file('harbour.bmp', bmpPicture(1_200, 800, { left: [10, 120, 90], right: [200, 200, 40] })));
    await expect.poll(async () => (await backdrop(page))?.size, { timeout: 15_000 }).toEqual([1200, 800]);
    const own = (await backdrop(page))!.hash;
    expect(own).not.toBe(images[0].hash);
    const set = (await exportLog(page)).events.filter((e) => e.kind === 'chat_background_set').map((e) => JSON.parse(typeof e.payload === 'string' ? e.payload : JSON.stringify(e.payload)).background);
    expect(set).toEqual(['none', 'host', own]);

    // Another tab of the chat follows; Look's dimming and switch reach it too.
    const other = await openTab(context, page.url());
    await expect.poll(() => backdrop(other), { timeout: 15_000 }).toMatchObject({ hash: own });
    const chatUrl = page.url();
    await page.goto(`${app.url}/settings`);
    const look = page.getByTestId('look-section');
    await look.getByRole('group', { name: 'Dim backgrounds' }).getByLabel('Strong').check();
    await expect.poll(async () => (await backdrop(other))?.veil, { timeout: 15_000 }).toBe('0.9');
    await look.getByLabel('Show chat backgrounds').uncheck();
    await expect.poll(() => other.getByTestId('chat-background').count(), { timeout: 15_000 }).toBe(0);
    await page.goto(chatUrl);
    await page.locator('.turn').first().waitFor();
    expect(await page.getByTestId('chat-background').count()).toBe(0);
  });

  it('a bot’s background is chosen and removed on its page', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url);
    expect(await page.getByTestId('chat-background').count()).toBe(0);
    const botId = await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.listBots())[0].id);
    await page.goto(`${app.url}/bots/${botId}/edit`);
    const field = page.locator('.background-field');
    await field.locator('input[type=file]').setInputFiles(file('notes.png', Buffer.from('not a picture')));
    await expect.poll(() => field.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/not a picture this browser can read/);
    await field.locator('input[type=file]').setInputFiles(file('dusk.bmp', bmpPicture(900, 600)));
    await expect.poll(() => field.locator('img.background-preview').count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/bots$/);
    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(async () => (await backdrop(page))?.size, { timeout: 15_000 }).toEqual([900, 600]);
    const stored = (await page.evaluate(async (botId) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      return engine.image((await engine.getBot(botId)).background);
    }, botId)) as { data: string };

    // Exported as a card, as PNG or JSON, it goes along: read back, the card brings the same picture.
    await page.goto(`${app.url}/bots/${botId}/edit`);
    for (const format of ['PNG', 'JSON']) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: `Export card (${format})` }).click();
      const path = join(freshProfile(), (await download).suggestedFilename());
      await (await download).saveAs(path);
      const read = await readCard(new Uint8Array(readFileSync(path)));
      expect([format, Buffer.from(read.background ?? []).toString('base64')]).toEqual([format, stored.data]);
    }

    await page.goto(`${app.url}/bots/${botId}/edit`);
    await field.getByRole('button', { name: 'Remove background' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/bots$/);
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('.turn').first().waitFor();
    await expect.poll(() => page.getByTestId('chat-background').count(), { timeout: 15_000 }).toBe(0);
  });
});
