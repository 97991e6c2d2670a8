import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browsers, exportLog, freshProfile, messageAction, openTab, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const WORLD_INFO = {
  entries: {
    '0': { uid: 0, key: ['harbour'], keysecondary: [], comment: 'The harbour', content: 'The harbour freezes in winter.', constant: false, selective: false, order: 100, position: 0, disable: false },
    '1': { uid: 1, key: ['bell'], keysecondary: [], comment: 'Bell tower', content: 'The bell has no rope.', constant: false, selective: false, order: 50, position: 1, disable: false },
    '2': { uid: 2, key: ['ghost'], keysecondary: [], comment: 'Ghost', content: 'Never told.', constant: false, selective: false, order: 10, position: 0, disable: true },
  },
};

function file(name: string, content: string): string {
  const path = join(freshProfile(), name);
  writeFileSync(path, content);
  return path;
}

describe('the Lore page', () => {
  it('imports world info, lists its entries, turns one off and edits another; a file that is not a lorebook is refused, writing nothing', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await storyReady(page);
    await page.goto(`${app.url}/lore`);
    const before = (await exportLog(page)).events.length;
    await page.locator('label:has-text("Import lorebook") input[type=file]').setInputFiles(file('card.json', JSON.stringify({ spec: 'chara_card_v2', data: { name: 'Mira' } })));
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/character card, not a lorebook/);
    expect((await exportLog(page)).events.length).toBe(before);

    await page.locator('label:has-text("Import lorebook") input[type=file]').setInputFiles(file('Harbour town.json', JSON.stringify(WORLD_INFO)));
    await expect.poll(() => page.getByTestId('lorebook-added').textContent(), { timeout: 15_000 }).toContain('Harbour town imported.');
    await expect.poll(() => page.getByRole('list', { name: 'Lorebooks' }).textContent(), { timeout: 15_000 }).toMatch(/Harbour town\s*Imported · 3 entries, 1 off/);
    await page.getByTestId('lorebook-added').getByRole('link', { name: 'Open it' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Entries' }).locator('li').count(), { timeout: 15_000 }).toBe(3);
    expect(await page.getByRole('checkbox', { name: 'Ghost on' }).isChecked()).toBe(false);

    await page.getByRole('checkbox', { name: 'The harbour on' }).uncheck();
    await page.getByRole('button', { name: 'Edit Bell tower' }).click();
    const form = page.getByRole('form', { name: 'Edit Bell tower' });
    await form.getByLabel('Content').fill('The bell rings at midnight.');
    await form.getByRole('textbox', { name: /^Keys/ }).fill('bell, chime');
    await form.getByRole('button', { name: 'Save entry' }).click();
    await expect.poll(() => form.count(), { timeout: 15_000 }).toBe(0);
    const bell = page.getByRole('list', { name: 'Entries' }).locator('li', { hasText: 'Bell tower' });
    await expect.poll(() => bell.textContent(), { timeout: 15_000 }).toMatch(/edited.*Keys: bell, chime.*The bell rings at midnight\./s);
    expect(await page.getByRole('checkbox', { name: 'The harbour on' }).isChecked()).toBe(false);
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // Kept across a reload: it is in the log.
    await page.reload();
    await expect.poll(() => page.getByRole('list', { name: 'Entries' }).locator('li', { hasText: 'Bell tower' }).textContent(), { timeout: 15_000 }).toContain('The bell rings at midnight.');
    expect((await exportLog(page)).events.filter((e) => e.kind === 'lore_entry_saved')).toHaveLength(2);

    await page.getByRole('button', { name: 'Delete lorebook' }).click();
    await page.getByRole('dialog', { name: 'Delete Harbour town?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(/\/lore$/);
    await expect.poll(() => page.getByText('No lorebooks yet.').isVisible(), { timeout: 15_000 }).toBe(true);
  });

  it('attaches a lorebook to a chat from its Story state; a reply then shows the entry that fired, and on which key, in "Why this reply?"', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.evaluate((text) => (globalThis as any).roleplayEngine.engine.addLorebook({ text, fileName: 'Harbour town.json' }), JSON.stringify(WORLD_INFO));
    await page.goto(`${app.url}/chats/${chatId}`);
    // The drawer opens by itself on a wide screen.
    const toggle = page.locator('.drawer-toggle');
    await toggle.waitFor();
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await page.getByRole('checkbox', { name: 'Harbour town' }).check();
    await expect.poll(() => page.evaluate((id) => (globalThis as any).roleplayEngine.engine.chatLorebooks(id), chatId), { timeout: 15_000 }).toEqual([
      expect.objectContaining({ name: 'Harbour town', attached: true }),
    ]);
    const composer = page.getByRole('textbox', { name: 'Message' });
    const before = await page.locator('.turn.assistant').count();
    await composer.fill('"Is the harbour open tonight?"');
    await composer.press('Enter');
    // The new reply, not the opening one (done already): its row first, then its end.
    await expect.poll(() => page.locator('.turn.assistant').count(), { timeout: 15_000 }).toBe(before + 1);
    const reply = page.locator('.turn.assistant').last();
    await expect.poll(() => reply.getAttribute('data-status'), { timeout: 20_000 }).toBe('done');
    await reply.hover();
    await messageAction(reply, 'Why this reply?');
    const dialog = page.getByRole('dialog', { name: 'Why this reply' });
    await expect.poll(() => dialog.locator('[data-tier="should"]').innerText(), { timeout: 15_000 }).toMatch(/lore: The harbour \(harbour\)/);
    expect(await dialog.innerText()).not.toMatch(/Bell tower/);
  });
});

describe('a lorebook of one’s own', () => {
  it('is made from nothing on the Lore page, gets entries, and exports as SillyTavern world info that imports back the same', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/lore`);
    await page.getByRole('textbox', { name: "New lorebook's name" }).fill('The Gull');
    await page.getByRole('button', { name: 'New lorebook' }).click();
    await page.waitForURL(/\/lore\/book\/[^/]+$/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('The Gull');

    await page.getByRole('button', { name: 'Add entry' }).click();
    const form = page.getByRole('form', { name: 'Edit Entry 1' });
    await form.getByLabel('Name').fill('The ship');
    await form.getByLabel(/^Keys/).fill('Gull, schooner');
    await form.getByLabel('Content').fill('The Gull is a two-masted schooner.');
    await form.getByRole('button', { name: 'Save' }).click();
    const entries = page.getByRole('list', { name: 'Entries' });
    await expect.poll(() => entries.textContent(), { timeout: 15_000 }).toContain('The ship');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export as world info' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('The Gull.json');
    const path = join(freshProfile(), 'The Gull.json');
    await saved.saveAs(path);
    const worldInfo = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.values(worldInfo.entries)).toEqual([expect.objectContaining({ key: ['Gull', 'schooner'], comment: 'The ship', content: 'The Gull is a two-masted schooner.', disable: false })]);

    await page.goto(`${app.url}/lore`);
    await page.locator('label:has-text("Import lorebook") input[type=file]').setInputFiles(path);
    await expect.poll(() => page.getByRole('list', { name: 'Lorebooks' }).locator('strong').allTextContents(), { timeout: 15_000 }).toEqual(['The Gull', 'The Gull']);
    await page.getByTestId('lorebook-added').getByRole('link', { name: 'Open it' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Entries' }).textContent(), { timeout: 15_000 }).toContain('The ship');
  });
});
