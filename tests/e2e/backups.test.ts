import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { botList, browsers, createBot, freshProfile, keptBackups, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

async function exportFromSettings(page: Page): Promise<string> {
  await page.goto(`${app.url}/settings`);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export backup' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^roleplay-engine-backup-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/);
  const path = join(freshProfile(), file.suggestedFilename());
  await file.saveAs(path);
  return path;
}

/** Every daily backup kept here, dated a day earlier: tomorrow, as far as the app can tell. */
function ageDailiesByADay(page: Page): Promise<void> {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('roleplay-engine-backups');
    const names: string[] = [];
    for await (const [name] of (dir as unknown as { entries(): AsyncIterable<[string, unknown]> }).entries()) names.push(name);
    // Oldest first, so no name is taken by a file not yet moved.
    for (const name of names.sort()) {
      const match = /^roleplay-engine-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(-daily\.jsonl\.gz.*)$/.exec(name);
      if (!match) continue;
      const at = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) - 24 * 60 * 60_000;
      const handle = (await dir.getFileHandle(name)) as FileSystemFileHandle & { move(name: string): Promise<void> };
      await handle.move(`roleplay-engine-${new Date(at).toISOString().replace(/[:.]/g, '-')}${match[6]}`);
    }
  });
}

const dailyFiles = async (page: Page) => {
  const names = await keptBackups(page);
  const whole = names.filter((n) => /-daily\.jsonl\.gz$/.test(n));
  const shared = names.filter((n) => /-daily\.jsonl\.gz\.shared$/.test(n));
  // Nothing being written: no file under its unfinished name, and every backup's summary beside it.
  const settled = !names.some((n) => n.endsWith('.partial')) && [...whole, ...shared.map((n) => n.replace(/\.shared$/, ''))].every((n) => names.includes(`${n}.json`));
  return { whole, shared, settled };
};

describe('backups from Settings', () => {
  it('exports a checked file; restoring it shows what it holds first, backs up what is here, and every tab follows', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Kept');
    const path = await exportFromSettings(page);
    const lines = gunzipSync(readFileSync(path)).toString('utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'roleplay-engine/event-log', version: 3 });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ end: true, events: lines.length - 2 });

    await page.goto(`${app.url}/bots`);
    await createBot(page, 'Written after');
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Kept', 'Written after']);
    const other = await openTab(context, `${app.url}/bots`);
    await expect.poll(() => botList(other).allTextContents(), { timeout: 15_000 }).toEqual(['Kept', 'Written after']);

    await page.goto(`${app.url}/settings`);
    await page.locator('.backup-section input[type=file]').setInputFiles(path);
    const dialog = page.getByRole('dialog', { name: 'Restore this backup?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/1 bot.*0 chats.*0 turns.*\d+ events?, every one checked/s);
    expect(await dialog.textContent()).toMatch(/backup of these same stories/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0);
    await page.goto(`${app.url}/bots`);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Kept', 'Written after']); // cancelling changed nothing

    await page.goto(`${app.url}/settings`);
    await page.locator('.backup-section input[type=file]').setInputFiles(path);
    await page.getByRole('dialog', { name: 'Restore this backup?' }).getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByTestId('backup-message').textContent(), { timeout: 20_000 }).toMatch(/Restored from roleplay-engine-backup/);
    await expect.poll(() => botList(other).allTextContents(), { timeout: 10_000 }).toEqual(['Kept']);
    // What was here before the restore is kept, whole, in this browser.
    const kept = await keptBackups(page);
    expect(kept.filter((n) => /-before-restore\.jsonl\.gz$/.test(n))).toHaveLength(1);
    expect(kept.some((n) => n.endsWith('.partial'))).toBe(false);
  });

  it('downloads a consistent copy of the SQLite file, named with the date', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'In the file');
    await page.goto(`${app.url}/settings`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download database file' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^roleplay-engine-\d{4}-\d{2}-\d{2}\.sqlite3$/);
    const path = join(freshProfile(), file.suggestedFilename());
    await file.saveAs(path);
    const bytes = readFileSync(path);
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(bytes.includes('In the file')).toBe(true);
    // 1 KiB pages (a new database), and marked a rollback-journal database: though the app's
    // runs on a WAL, the copy holds every commit and any SQLite opens it without one.
    expect(bytes.readUInt16BE(16)).toBe(1024);
    expect([bytes[18], bytes[19]]).toEqual([1, 1]);
  });

  it('refuses a damaged file before anything changes, naming the line', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Untouched');
    const path = await exportFromSettings(page);
    const lines = gunzipSync(readFileSync(path)).toString('utf8').trim().split('\n');
    const changed = lines.map((line, i) => (i === 1 ? line.replace(/"ts":(\d+)/, (_, ts) => `"ts":${Number(ts) + 1}`) : line));
    const damaged = join(freshProfile(), 'damaged.jsonl.gz');
    writeFileSync(damaged, gzipSync(`${changed.join('\n')}\n`));

    await page.locator('.backup-section input[type=file]').setInputFiles(damaged);
    await expect.poll(() => page.getByTestId('backup-message').textContent(), { timeout: 15_000 }).toMatch(new RegExp(`Line ${lines.length} of the backup has a checksum that does not match`));
    // Said beside the button that asked, not under the page title far above (issue 13).
    const gap = await page.evaluate(() => {
      const button = document.querySelector('.backup-section label.button')!.getBoundingClientRect();
      const message = document.querySelector('[data-testid="backup-message"]')!.getBoundingClientRect();
      return message.top - button.bottom;
    });
    expect(gap).toBeGreaterThanOrEqual(0);
    expect(gap).toBeLessThan(80);
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.goto(`${app.url}/bots`);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Untouched']);
    expect((await keptBackups(page)).filter((n) => n.includes('before-restore'))).toEqual([]);
  });

  it('writes a daily backup once there are stories, lists it in Settings, and it downloads and restores', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Daily');
    await page.reload(); // the first open with stories in it
    await expect.poll(async () => (await keptBackups(page)).filter((n) => /-daily\.jsonl\.gz$/.test(n)), { timeout: 15_000 }).toHaveLength(1);

    await page.goto(`${app.url}/settings`);
    const table = page.getByRole('table', { name: 'Backups in this browser' });
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
    expect(await table.locator('tbody tr').textContent()).toMatch(/Daily.*1 bot, 0 chats, \d+ events?/);
    const download = page.waitForEvent('download');
    await table.getByRole('button', { name: /^Download the backup of/ }).click();
    const path = join(freshProfile(), 'daily.jsonl.gz');
    await (await download).saveAs(path);
    expect(JSON.parse(gunzipSync(readFileSync(path)).toString('utf8').split('\n')[0]!)).toMatchObject({ version: 3 });

    await page.goto(`${app.url}/bots`);
    await createBot(page, 'Since');
    await page.goto(`${app.url}/settings`);
    await table.getByRole('button', { name: /^Restore the backup of/ }).click();
    await page.getByRole('dialog', { name: 'Restore this backup?' }).getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByTestId('backup-message').textContent(), { timeout: 20_000 }).toMatch(/Restored from roleplay-engine-.*-daily\.jsonl\.gz/);
    await page.goto(`${app.url}/bots`);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Daily']);
  });

  it('keeps older dailies as what they differ by from the next, and each still downloads and restores whole', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday'];
    for (const [i, day] of days.entries()) {
      if (i > 0) await ageDailiesByADay(page);
      await page.goto(`${app.url}/bots`);
      await createBot(page, day);
      await page.reload(); // the first open of the day writes its daily backup
      const kept = async () => {
        const files = await dailyFiles(page);
        return [files.whole.length + files.shared.length, files.shared.length, files.settled];
      };
      await expect.poll(kept, { timeout: 30_000 }).toEqual([i + 1, Math.max(0, i - 1), true]);
    }
    // Whole: the newest, and the oldest (so no one file is all there is); Tuesday's and Wednesday's
    // are what they differ by from the day after.
    const files = await dailyFiles(page);
    expect(files.whole).toHaveLength(2);

    await page.goto(`${app.url}/settings`);
    const table = page.getByRole('table', { name: 'Backups in this browser' });
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(4);
    const tuesday = table.locator('tbody tr').nth(2);
    expect(await tuesday.textContent()).toMatch(/Daily.*2 bots, 0 chats/);
    const download = page.waitForEvent('download');
    await tuesday.getByRole('button', { name: /^Download the backup of/ }).click();
    const path = join(freshProfile(), 'tuesday.jsonl.gz');
    await (await download).saveAs(path);
    // Rebuilt through Wednesday's and Thursday's: the whole file, as Tuesday's was written.
    const lines = gunzipSync(readFileSync(path)).toString('utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 3 });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ end: true, events: lines.length - 2 });
    expect(lines.some((l) => l.includes('Tuesday'))).toBe(true);
    expect(lines.some((l) => l.includes('Wednesday'))).toBe(false);

    await tuesday.getByRole('button', { name: /^Restore the backup of/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore this backup?' });
    await dialog.waitFor();
    await expect.poll(() => dialog.textContent(), { timeout: 15_000 }).toMatch(/2 bots.*every one checked/s);
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByTestId('backup-message').textContent(), { timeout: 20_000 }).toMatch(/Restored from roleplay-engine-.*-daily\.jsonl\.gz/);
    await page.goto(`${app.url}/bots`);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Monday', 'Tuesday']);

    // A damaged link in the chain: Tuesday's cannot be rebuilt, and says so; nothing changes.
    await page.evaluate(async (name) => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('roleplay-engine-backups');
      const out = await (await dir.getFileHandle(name)).createWritable();
      await out.write('not a backup');
      await out.close();
    }, files.shared.sort().at(-1)!);
    await page.goto(`${app.url}/settings`);
    await table.locator('tbody tr').nth(3).waitFor();
    const restoreButtons = table.getByRole('button', { name: /^Restore the backup of/ });
    await restoreButtons.nth(3).click();
    await expect.poll(() => page.getByTestId('backup-message').textContent(), { timeout: 20_000 }).toMatch(/cannot be rebuilt from them: .*damaged/);
    await page.goto(`${app.url}/bots`);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Monday', 'Tuesday']);
  });
});
