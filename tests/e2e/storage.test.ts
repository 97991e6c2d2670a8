import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { openStory } from '../support/story.ts';
import { botList, browsers, createBot, openTab, servedApp, storedPageBytes, waitForDatabase } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

/**
 * The database's WAL as stored in the pool (its pool header names the file it holds): its size,
 * and the frames of its current run (those carrying the WAL header's salts), each page by digest.
 */
const walFile = (page: Page): Promise<{ size: number; frames: { page: number; commit: boolean; digest: string }[] } | null> =>
  page.evaluate(async () => {
    const POOL_HEADER = 4096;
    const WAL_HEADER = 32;
    const FRAME_HEADER = 24;
    const pool = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('roleplay-engine')).getDirectoryHandle('.opaque');
    for await (const handle of (pool as unknown as { values(): AsyncIterable<FileSystemFileHandle> }).values()) {
      const file = await handle.getFile();
      const name = new TextDecoder().decode(new Uint8Array(await file.slice(0, 512).arrayBuffer())).split('\0')[0]!;
      if (!name.endsWith('-wal')) continue;
      const wal = new Uint8Array(await file.slice(POOL_HEADER).arrayBuffer());
      const frames = [];
      if (wal.length >= WAL_HEADER) {
        const view = new DataView(wal.buffer);
        const pageSize = view.getUint32(8);
        for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
          if (view.getUint32(at + 8) !== view.getUint32(16) || view.getUint32(at + 12) !== view.getUint32(20)) break;
          const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize)));
          frames.push({ page: view.getUint32(at), commit: view.getUint32(at + 4) !== 0, digest: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') });
        }
      }
      return { size: file.size, frames };
    }
    return null;
  });

/**
 * A story of 300 exchanges made by the engine in Node, as a backup the app imports. Each reply is
 * `rain` sentences long: the copy a rewrite needs grows with them.
 */
async function storyBackup(rain = 6) {
  const { engine, chat } = await openStory();
  for (let i = 1; i <= 300; i++) {
    const started = engine.turns.beginTurn(chat, `"Line ${i}."`);
    engine.turns.finishTurn(started, { text: `Mira answers line ${i}. ${'The rain drums on the deck. '.repeat(rain)}`, usage: null, truncated: false, reason: null, error: null });
  }
  return { backup: JSON.parse(JSON.stringify(engine.exportLog())), chat };
}

describe('a database made with larger pages than 1 KiB (every build before them)', () => {
  it('is rewritten to 1 KiB pages once as it opens, with a bar saying how far, and keeps every turn', async () => {
    const { backup, chat } = await storyBackup();
    ({ context } = await launchBrowser());
    // Each rewrite bar the page shows, with its value, kept across loads.
    await context.addInitScript(() => {
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLProgressElement>('[data-banner="rewrite"] progress');
        if (bar) sessionStorage.setItem('rewrite-bars', JSON.stringify([...(JSON.parse(sessionStorage.getItem('rewrite-bars') ?? '[]') as number[]), bar.value]));
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    // Made as the builds before 1 KiB pages made it.
    const page = await openTab(context, `${app.url}/chats?e2e-page-bytes=4096`);
    await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
    expect(await storedPageBytes(page)).toBe(4096);
    const bars = async () => JSON.parse(await page.evaluate(() => sessionStorage.getItem('rewrite-bars') ?? '[]')) as number[];
    expect(await bars()).toEqual([]);

    await page.goto(`${app.url}/chats`);
    await waitForDatabase(page);
    expect(await storedPageBytes(page)).toBe(1024);
    expect((await bars()).length).toBeGreaterThan(0);
    await page.goto(`${app.url}/chats/${chat}`);
    await page.getByText('Mira answers line 300.', { exact: false }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Jump to the start' }).click();
    await page.getByText('"Line 1."', { exact: true }).waitFor({ timeout: 15_000 });

    // Once: the next start opens it as it is.
    await page.evaluate(() => sessionStorage.removeItem('rewrite-bars'));
    await page.goto(`${app.url}/chats`);
    await waitForDatabase(page);
    expect(await bars()).toEqual([]);
    expect(await storedPageBytes(page)).toBe(1024);
  });

  it('opens as it was when there is no room to rewrite it, and is rewritten at a start with room', async () => {
    // Long replies: the rewritten copy (~1 MB) is well over the room left below, however small the
    // rows get (0065-0067 brought a story of short replies under it, and the rewrite fitted).
    const { backup, chat } = await storyBackup(40);
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats?e2e-page-bytes=8192`);
    await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
    expect(await storedPageBytes(page)).toBe(8192);
    // The origin's quota lowered to what it uses with the app open (the browser reserves room for
    // the open files), and a little more: the copy a rewrite needs does not fit.
    const cdp = await context.newCDPSession(page);
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url, quotaSize: usage + 256 * 1024 });
    await page.goto(`${app.url}/chats/${chat}`);
    await waitForDatabase(page);
    await page.getByText('Mira answers line 300.', { exact: false }).waitFor({ timeout: 15_000 });
    expect(await storedPageBytes(page)).toBe(8192);
    await expect.poll(() => page.locator('[data-banner="rewrite"]').count(), { timeout: 15_000 }).toBe(0);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url });
    await page.goto(`${app.url}/chats/${chat}`);
    await waitForDatabase(page);
    expect(await storedPageBytes(page)).toBe(1024);
    await page.getByText('Mira answers line 300.', { exact: false }).waitFor({ timeout: 15_000 });
  });
});

describe('when the browser refuses to store more', () => {
  it('the change is not kept, every tab says why, nothing saved before is touched, and the next write works once there is room', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Saved before');
    const other = await openTab(context, `${app.url}/bots`);
    await expect.poll(() => botList(other).allTextContents(), { timeout: 15_000 }).toEqual(['Saved before']);

    // The origin's quota lowered to what it uses now: the database cannot grow.
    const cdp = await context.newCDPSession(page);
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url, quotaSize: usage });
    const refused = await page.evaluate(async () => {
      const client = (globalThis as unknown as { roleplayEngine: { engine: { saveBot(form: object, id: null): Promise<string> } } }).roleplayEngine;
      const form = (i: number) => ({ name: `Big ${i}`, persona: 'x'.repeat(7_000), voiceSamples: [], traits: [], backstory: 'y'.repeat(7_000), initialRelationship: '', kickoff: '' });
      for (let i = 0; i < 400; i++) {
        try {
          await client.engine.saveBot(form(i), null);
        } catch (error) {
          return { at: i, name: (error as Error).name, message: (error as Error).message };
        }
      }
      return null;
    });
    expect(refused).toMatchObject({ name: 'StorageError', message: expect.stringMatching(/^Your last change was not saved: .*Everything saved before is unchanged\.$/) });
    for (const tab of [page, other]) {
      await expect.poll(() => tab.locator('[data-banner="not-saved"]').textContent(), { timeout: 15_000 }).toMatch(/Your last change was not saved/);
    }
    await page.reload();
    // A reload starts a new leader, which takes more than poll's default second on a busy machine.
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toContain('Saved before');
    expect(await botList(page).allTextContents()).not.toContain(`Big ${refused!.at}`);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url });
    await createBot(page, 'After');
    await expect.poll(() => botList(other).allTextContents(), { timeout: 15_000 }).toContain('After');
    await expect.poll(() => other.locator('[data-banner="not-saved"]').count(), { timeout: 15_000 }).toBe(0);
  });
});

describe("the WAL's file", () => {
  it('is emptied once the app is quiet after opening, and everything written stays', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Kept');
    // A few megabytes of writes: the WAL's file grows with them.
    await page.evaluate(async () => {
      const client = (globalThis as unknown as { roleplayEngine: { engine: { saveBot(form: object, id: null): Promise<string> } } }).roleplayEngine;
      for (let i = 0; i < 120; i++) {
        await client.engine.saveBot({ name: `Wordy ${i}`, persona: 'x'.repeat(7_000), voiceSamples: [], traits: [], backstory: 'y'.repeat(7_000), initialRelationship: '', kickoff: '' }, null);
      }
    });
    const walBytes = async () => (await walFile(page))?.size ?? -1;
    const grown = await walBytes();
    expect(grown).toBeGreaterThan(1_000_000);
    await page.reload();
    await expect.poll(walBytes, { timeout: 20_000 }).toBeLessThan(10_000);
    await page.reload();
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toContain('Kept');
    expect((await botList(page).allTextContents()).filter((name) => name.startsWith('Wordy'))).toHaveLength(120);
  });
});

describe('a start with no room to open the stories', () => {
  it('says so, offers a reload and not a fresh start, changes nothing, and opens them once there is room', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'Kept through it');
    // The origin's quota lowered to what it stores at rest: the pool's files cannot be opened.
    await page.goto(`${app.url}/robots.txt`);
    const cdp = await context.newCDPSession(page);
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url, quotaSize: usage });
    await page.goto(`${app.url}/bots`);
    await page.getByRole('heading', { name: 'There is no room to open your stories' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('main').textContent()).toContain('Nothing was changed');
    expect(await page.getByRole('button', { name: 'Start fresh' }).count()).toBe(0);
    expect(await page.getByText('Restore from a backup file…').count()).toBe(0);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.url });
    await page.getByRole('button', { name: 'Reload' }).click();
    await waitForDatabase(page);
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toEqual(['Kept through it']);
  });
});

describe('a commit', () => {
  it('writes each page it changed once, and none beside it as it was, with no copies padding the WAL', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await createBot(page, 'First');
    // The commits of the first start (the migrations, the journal's triggers) are judged by what
    // follows them, not themselves: SQLite may rebalance the schema's pages into what one held.
    const settled = (await walFile(page))!.frames.length;
    await page.evaluate(async () => {
      const client = (globalThis as unknown as { roleplayEngine: { engine: { saveBot(form: object, id: null): Promise<string> } } }).roleplayEngine;
      for (let i = 0; i < 4; i++) {
        await client.engine.saveBot({ name: `Brief ${i}`, persona: `Persona ${i}`, voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null);
      }
    });
    await expect.poll(() => botList(page).allTextContents(), { timeout: 15_000 }).toContain('Brief 3');
    const { frames } = (await walFile(page))!;
    const commits = frames.filter((frame) => frame.commit);
    expect(commits.length).toBeGreaterThanOrEqual(4);
    // SQLite pads a commit to the disk's sector with copies of its last frame unless told a write
    // leaves its neighbours intact: a page more on disk for every commit.
    const copies = frames.filter((frame, i) => i > 0 && frame.commit && frames[i - 1]!.commit && frame.page === frames[i - 1]!.page && frame.digest === frames[i - 1]!.digest);
    expect(copies).toEqual([]);
    // Nor does it write the pages beside a changed one, as SQLite does when it takes the disk's
    // 4 KiB sector for the unit of a write: four 1 KiB pages for one, three of them as they were.
    const lastOf = new Map<number, string>();
    const unchanged: number[] = [];
    frames.forEach((frame, i) => {
      if (i >= settled && lastOf.get(frame.page) === frame.digest) unchanged.push(frame.page);
      lastOf.set(frame.page, frame.digest);
    });
    expect(frames.length).toBeGreaterThan(settled);
    expect(unchanged).toEqual([]);
  });
});
