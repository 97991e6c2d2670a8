import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { botList, browsers, createBot, exportLog, freshProfile, openTab, servedApp, touchDatabaseFiles, waitForDatabase } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

/** A same-origin page that does not start the app, so no worker holds the database files. */
async function bareOriginPage(ctx: BrowserContext): Promise<Page> {
  for (const page of ctx.pages()) await page.close();
  const page = await ctx.newPage();
  await page.goto(`${app.url}/api/health`);
  return page;
}

/** Overwrites the database pages (past the pool's 4 KiB header) of every file in the OPFS pool. */
function corruptDatabase(page: Page) {
  return touchDatabaseFiles(page, async () => {
    const root = await navigator.storage.getDirectory();
    const pool = await root.getDirectoryHandle('roleplay-engine');
    let touched = 0;
    const walk = async (dir: FileSystemDirectoryHandle) => {
      for await (const [, handle] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (handle.kind === 'directory') await walk(handle as FileSystemDirectoryHandle);
        else {
          const file = await (handle as FileSystemFileHandle).getFile();
          if (file.size <= 4096) continue;
          const writable = await (handle as FileSystemFileHandle).createWritable({ keepExistingData: true });
          await writable.write({ type: 'write', position: 4096, data: new Uint8Array(8192).fill(0x5a) });
          await writable.close();
          touched++;
        }
      }
    };
    await walk(pool);
    return touched;
  });
}

function quarantined(page: Page) {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('roleplay-engine-quarantine').catch(() => null);
    if (!dir) return [];
    const names: string[] = [];
    for await (const [name] of (dir as unknown as { entries(): AsyncIterable<[string, unknown]> }).entries()) names.push(name);
    return names;
  });
}

it('a corrupt database gives a clear screen; start fresh keeps the damaged file aside and the app works', async () => {
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots`);
  await createBot(page, 'Doomed');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Doomed']);

  const bare = await bareOriginPage(context);
  expect(await corruptDatabase(bare)).toBeGreaterThan(0);
  await bare.goto(`${app.url}/bots`);
  await waitForDatabase(bare, 'corrupt');
  await expect.poll(() => bare.getByRole('heading', { level: 1 }).textContent()).toBe('Your stories could not be opened');
  expect(await bare.getByText('Restore from a backup file…').isVisible()).toBe(true);

  await bare.getByRole('button', { name: 'Start fresh' }).click();
  await waitForDatabase(bare, 'ready');
  await expect.poll(() => bare.getByText('No bots yet.').isVisible()).toBe(true);
  await createBot(bare, 'Fresh start');
  await expect.poll(() => botList(bare).allTextContents()).toEqual(['Fresh start']);
  expect(await quarantined(bare)).toEqual([expect.stringMatching(/^roleplay-engine-.*\.sqlite3$/)]);
});

it('a database that went missing is not silently replaced: the screen offers a restore, which brings everything back', async () => {
  ({ context } = await launchBrowser());
  const page = await openTab(context, `${app.url}/bots`);
  await createBot(page, 'Remembered');
  await expect.poll(() => botList(page).allTextContents()).toEqual(['Remembered']);
  const backupPath = join(freshProfile(), 'backup.json');
  writeFileSync(backupPath, JSON.stringify(await exportLog(page)));

  const bare = await bareOriginPage(context);
  await touchDatabaseFiles(bare, async () => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry('roleplay-engine', { recursive: true });
  });
  await bare.goto(`${app.url}/bots`);
  await expect.poll(() => bare.getByRole('heading', { level: 1 }).textContent(), { timeout: 20_000 }).toBe('Your saved stories are missing');

  // A file that is not a backup is refused with a reason, and nothing changes.
  const junkPath = join(freshProfile(), 'notes.json');
  writeFileSync(junkPath, '{"hello": "world"}');
  await bare.locator('input[type=file]').setInputFiles(junkPath);
  await expect.poll(() => bare.getByRole('alert').textContent()).toMatch(/not a Roleplay Engine backup/);

  await bare.locator('input[type=file]').setInputFiles(backupPath);
  await expect.poll(() => botList(bare).allTextContents(), { timeout: 20_000 }).toEqual(['Remembered']);
  await bare.reload();
  await expect.poll(() => botList(bare).allTextContents()).toEqual(['Remembered']);
});
