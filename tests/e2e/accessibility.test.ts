import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { browsers, freshProfile, chatAction, messageAction, openTab, servedApp, storyReady } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;


describe('accessibility', () => {
  it('every page and dialog has no serious or critical axe violation, wide and on a phone', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/settings?welcome=1`);
    const found: string[] = [];
    const check = async (where: string) => found.push(...(await violations(page, where)));

    await page.getByRole('button', { name: 'Export backup' }).waitFor();
    await check('welcome');
    const chatId = await storyReady(page);
    await page.evaluate(async (chatId) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      await engine.sendTurn(chatId, '"Shall we?" ((quietly))');
    }, chatId);
    // This tab leads: it stays until the reply is written (leaving would cut it short).
    const replied = () =>
      page.evaluate(async (chatId) => {
        const { turns } = await (globalThis as any).roleplayEngine.engine.transcript(chatId);
        return turns.filter((t: { role: string; status: string }) => t.role === 'assistant' && t.status === 'done').length;
      }, chatId);
    await expect.poll(replied, { timeout: 20_000 }).toBe(2);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.evaluate(
      (text) => (globalThis as any).roleplayEngine.engine.addLorebook({ text, fileName: 'Harbour.json' }),
      JSON.stringify({ entries: { '0': { uid: 0, key: ['harbour'], keysecondary: ['ice'], selective: true, comment: 'Harbour', content: 'Cold water.' } } }),
    );
    const chatFile = join(freshProfile(), 'Mira.jsonl');
    writeFileSync(chatFile, [{ user_name: 'Ada', character_name: 'Mira', chat_metadata: {} }, { name: 'Mira', is_user: false, mes: 'Hello.', send_date: 'June 3, 2023 1:23pm' }].map((l) => JSON.stringify(l)).join('\n'));

    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      const size = `${width}x${height}`;
      await page.setViewportSize({ width, height });

      await page.goto(`${app.url}/chats`);
      await page.getByRole('list', { name: 'Chats' }).waitFor();
      await check(`chats ${size}`);
      await page.getByRole('searchbox', { name: 'Search all chats' }).fill('storm');
      await page.getByRole('list', { name: 'Search results' }).waitFor();
      await check(`search ${size}`);

      await page.goto(`${app.url}/chats/${chatId}`);
      await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
      await check(`chat ${size}`);
      if (width < 640) {
        await page.getByRole('button', { name: 'Story state' }).click();
        await page.getByTestId('story-drawer').waitFor();
        await check(`drawer ${size}`);
        await page.getByRole('button', { name: 'Hide story state' }).click();
      }
      await messageAction(page.locator('.turn.assistant').last(), 'Why this reply?');
      await page.getByRole('dialog', { name: 'Why this reply' }).waitFor();
      await check(`why this reply ${size}`);
      await page.keyboard.press('Escape');
      await messageAction(page.locator('.turn').first(), 'Rewind to here');
      await page.getByRole('dialog', { name: 'Rewind to here?' }).getByRole('button', { name: 'Cancel' }).waitFor();
      await check(`rewind ${size}`);
      await page.keyboard.press('Escape');
      // "Jump to a date": a button in the header, on a phone in the chat's menu.
      if (width < 640) await chatAction(page, 'Jump to a date');
      else await page.getByRole('button', { name: 'Jump to a date' }).click();
      await page.getByRole('dialog', { name: 'Jump to a date' }).getByRole('radio', { name: 'Real time' }).waitFor();
      await check(`jump to a date ${size}`);
      await page.keyboard.press('Escape');

      await page.goto(`${app.url}/chats`);
      await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(chatFile);
      await page.getByTestId('chat-preview').waitFor();
      await check(`chat import ${size}`);
      await page.keyboard.press('Escape');

      await page.goto(`${app.url}/lore`);
      await page.getByRole('list', { name: 'Lorebooks' }).waitFor();
      await check(`lore ${size}`);
      await page.getByRole('link', { name: /Harbour/ }).click();
      await page.getByRole('button', { name: 'Edit Harbour' }).click();
      await page.getByRole('form', { name: 'Edit Harbour' }).waitFor();
      await check(`lorebook ${size}`);

      await page.goto(`${app.url}/bots`);
      await page.getByRole('list', { name: 'Bots' }).waitFor();
      await check(`bots ${size}`);
      await page.getByRole('link', { name: 'Edit Mira' }).click();
      await page.getByLabel('Pronouns').waitFor();
      await check(`bot form ${size}`);
      await page.getByRole('button', { name: 'Reset…' }).click();
      await page.getByRole('dialog').waitFor();
      await check(`reset dialog ${size}`);
      await page.keyboard.press('Escape');
      await page.goto(`${app.url}/bots/new`);
      await page.getByLabel('Name').waitFor();
      await check(`new bot ${size}`);
      await page.goto(`${app.url}/bots`);
      await page.getByRole('link', { name: 'Start a chat with Mira' }).click();
      await page.getByText('More details').click();
      await check(`kickoff ${size}`);

      await page.goto(`${app.url}/settings`);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export backup' }).click();
      const file = await download;
      const path = join(freshProfile(), file.suggestedFilename());
      await file.saveAs(path);
      await check(`settings ${size}`);
      await page.locator('.backup-section input[type=file]').setInputFiles(path);
      await page.getByRole('dialog', { name: 'Restore this backup?' }).waitFor();
      await check(`restore preview ${size}`);
      await page.getByRole('dialog', { name: 'Restore this backup?' }).getByRole('button', { name: 'Cancel' }).click();

      await page.evaluate((id) => (globalThis as any).roleplayEngine.engine.deleteChat(id), chatId);
      await page.goto(`${app.url}/deleted`);
      await page.getByRole('list', { name: 'Deleted chats' }).waitFor();
      await check(`recently deleted ${size}`);
      await page.evaluate((id) => (globalThis as any).roleplayEngine.engine.restoreChat(id), chatId);
    }
    expect(found).toEqual([]);
  });
});
