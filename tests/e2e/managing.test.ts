import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { browsers, chatAction, exportLog, freshProfile, openTab, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const chatTitles = (page: Page) => page.getByRole('list', { name: 'Chats' }).locator('strong').allTextContents();

describe('managing chats and bots', () => {
  it('renames a chat in its header; deletes it with Undo on the list; Recently deleted restores it, or deletes it forever after asking twice', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);

    await page.getByRole('button', { name: 'Edit chat title' }).click();
    await page.getByRole('textbox', { name: 'chat title' }).fill('The long night');
    await page.getByRole('textbox', { name: 'chat title' }).press('Enter');
    await expect.poll(() => page.locator('#chat-title').textContent(), { timeout: 15_000 }).toContain('The long night');

    await chatAction(page, 'Delete chat');
    await page.waitForURL(/\/chats\?deleted=/);
    await expect.poll(() => page.getByTestId('deleted-toast').textContent(), { timeout: 15_000 }).toContain('“The long night” moved to Recently deleted.');
    await expect.poll(() => page.getByText('No chats yet').isVisible(), { timeout: 15_000 }).toBe(true);
    await page.getByTestId('deleted-toast').getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => chatTitles(page), { timeout: 15_000 }).toEqual(['The long night']);

    await page.goto(`${app.url}/chats/${chatId}`);
    await chatAction(page, 'Delete chat');
    await page.waitForURL(/\/chats\?deleted=/);
    await page.getByRole('link', { name: 'Recently deleted' }).click();
    const deleted = page.getByRole('list', { name: 'Deleted chats' });
    await expect.poll(() => deleted.textContent(), { timeout: 15_000 }).toMatch(/The long night.*with Mira, deleted .* goes for good on/);
    await page.getByRole('button', { name: 'Restore The long night' }).click();
    await expect.poll(() => page.getByText('Nothing deleted.').isVisible(), { timeout: 15_000 }).toBe(true);
    await page.getByRole('link', { name: 'Back to chats' }).click();
    await expect.poll(() => chatTitles(page), { timeout: 15_000 }).toEqual(['The long night']);

    await page.evaluate((id) => (globalThis as any).roleplayEngine.engine.deleteChat(id), chatId);
    await page.goto(`${app.url}/deleted`);
    await page.getByRole('button', { name: 'Delete forever: The long night' }).click();
    // The first click only asks.
    expect(await deleted.locator('li').count()).toBe(1);
    await page.getByRole('button', { name: 'Really delete forever? The long night' }).click();
    await expect.poll(() => page.getByText('Nothing deleted.').isVisible(), { timeout: 15_000 }).toBe(true);
    const log = await exportLog(page);
    expect(log.events.some((e) => e.kind === 'purged')).toBe(true);
    expect(log.events.filter((e) => e.kind === 'user_turn' || e.kind === 'chat_created')).toHaveLength(0);
  });

  it('a bot deleted from the Bots page takes its chats along, with Undo; a tab showing one of them says so and can restore it', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    const other = await openTab(context, `${app.url}/chats/${chatId}`);
    await page.goto(`${app.url}/bots`);
    await page.getByRole('button', { name: 'Delete Mira' }).click();
    await expect.poll(() => page.getByTestId('deleted-toast').textContent(), { timeout: 15_000 }).toContain('Mira and their chats moved to Recently deleted.');
    await expect.poll(() => page.getByRole('list', { name: 'Bots' }).count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => other.locator('[data-banner="chat-deleted"]').textContent(), { timeout: 15_000 }).toContain('bot is in Recently deleted');

    await page.getByTestId('deleted-toast').getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Bots' }).locator('strong').allTextContents(), { timeout: 15_000 }).toEqual(['Mira']);
    await expect.poll(() => other.locator('[data-banner="chat-deleted"]').count(), { timeout: 15_000 }).toBe(0);

    await page.getByRole('button', { name: 'Delete Mira' }).click();
    await other.getByRole('button', { name: 'Restore bot' }).click();
    await expect.poll(() => other.locator('[data-banner="chat-deleted"]').count(), { timeout: 15_000 }).toBe(0);
    await page.goto(`${app.url}/chats`);
    await expect.poll(() => chatTitles(page), { timeout: 15_000 }).toHaveLength(1);
  });

  it('exports a chat from its drawer as a SillyTavern file and as Markdown', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.goto(`${app.url}/chats/${chatId}`);
    const save = async (button: string) => {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: button }).click();
      const file = await download;
      const path = join(freshProfile(), file.suggestedFilename());
      await file.saveAs(path);
      return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
    };
    const tavern = await save('Export for SillyTavern');
    expect(tavern.name).toBe('A story with Mira.jsonl');
    const [header, ...messages] = tavern.text.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(header).toMatchObject({ user_name: 'Ada', character_name: 'Mira' });
    expect(messages).toEqual([expect.objectContaining({ name: 'Mira', is_user: false, mes: 'The storm breaks.' })]);
    const markdown = await save('Export as Markdown');
    expect(markdown).toEqual({ name: 'A story with Mira.md', text: expect.stringContaining('**Mira:** The storm breaks.') });
  });
});

describe('export everything', () => {
  it('every bot as a PNG card and every chat as a SillyTavern chat, in one zip, with a progress bar; two of one name are both kept', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await storyReady(page);
    // A second chat of the same title: both are kept, the second as "(2)".
    const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 2, 9));
    await page.evaluate(async (kickoff) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      const [chat] = await engine.listChats();
      await engine.startChat(chat.botId, kickoff);
    }, kickoff);
    await page.goto(`${app.url}/settings`);
    const section = page.getByTestId('export-everything');
    // Every value the progress bar shows, as it shows it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (globalThis as any).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('[data-testid="export-everything"] progress');
        if (bar) seen.push(`${bar.getAttribute('value')}/${bar.getAttribute('max')}`);
      }).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    const download = page.waitForEvent('download');
    await section.getByRole('button', { name: 'Export everything' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^roleplay-engine-export-\d{4}-\d\d-\d\d\.zip$/);
    const path = join(freshProfile(), file.suggestedFilename());
    await file.saveAs(path);
    const { unzipSync, strFromU8 } = await import('fflate');
    const files = unzipSync(new Uint8Array(readFileSync(path)));
    expect(Object.keys(files).filter((f) => f.startsWith('bots/'))).toEqual(['bots/Mira.png']);
    expect(Object.keys(files).filter((f) => f.startsWith('chats/')).sort()).toEqual(['chats/Mira - A story with Mira (2).jsonl', 'chats/Mira - A story with Mira.jsonl']);
    const png = files['bots/Mira.png']!;
    expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    expect(strFromU8(png, true)).toContain('ccv3');
    const header = JSON.parse(strFromU8(files['chats/Mira - A story with Mira.jsonl']!).split('\n')[0]!);
    expect(header).toMatchObject({ character_name: 'Mira', user_name: 'Ada' });
    await expect.poll(() => section.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Exported 1 bot and 2 chats.');
    const seen = (await page.evaluate(() => (globalThis as any).progressSeen)) as string[];
    // It moved file by file (the last step and the zip come in one go, gone before it is drawn).
    expect(seen).toEqual(expect.arrayContaining(['1/3', '2/3']));
  });
});
