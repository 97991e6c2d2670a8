import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import type { Database } from '@sqlite.org/sqlite-wasm';
import { TEST_KEY } from '../tests/support/relay-harness.ts';
import { json, sseChunk, startFakeUpstream, startSse } from '../tests/support/fake-upstream.ts';
import { launchBrowser, openTab, startApp, storedPageBytes, waitForDatabase } from '../tests/e2e/harness.ts';
import { demoReply } from '../relay/demo-model.ts';
import type { CompletionRequest } from '../relay/request-body.ts';
import { benchStoryBackup, restoreStories, STORY_LINE } from './chat.bench.ts';
import { fmt, printTable } from './table.ts';
import { WAL_PAGES_BEFORE_COPY } from '../src/worker/disk-layout.ts';
import { BACKUPS_KEPT } from '../src/worker/backup-store.ts';
import { loadSqlite } from '../tests/support/sqlite.ts';

/** `BENCH_DISK_SIZES=1000` to run fewer. `BENCH_DISK_ANALYSED=0` leaves out the analysed story's storage. */
const SIZES = (process.env.BENCH_DISK_SIZES ?? '1000,10000').split(',').map(Number);
const SENDS = Number(process.env.BENCH_DISK_SENDS ?? 20);
/**
 * `BENCH_DISK_DAYS=1` to skip the fortnight: after the Sends, the bench plays on for this many days
 * in all (the daily backups dated a day back between them, so the app writes the next day's),
 * `BENCH_DISK_DAY_SENDS` Sends a day, and reads the storage again with every daily kept.
 */
const DAYS = Number(process.env.BENCH_DISK_DAYS ?? BACKUPS_KEPT.daily);
const DAY_SENDS = Number(process.env.BENCH_DISK_DAY_SENDS ?? 3);
/**
 * `BENCH_DISK_PAGE_BYTES=8192`: the story played on a database made as builds before 4 KiB pages
 * made it, and left so (the test hook skips the rewrite): what the rewrite saves an older player.
 */
const MADE_WITH = process.env.BENCH_DISK_PAGE_BYTES ? `?e2e-page-bytes=${Number(process.env.BENCH_DISK_PAGE_BYTES)}` : '';
/** After the analysis, the quiet in which anything still queued (search index, checkpoints) is written. */
const SETTLE_MS = 1_500;
/** A reply of ~140 words streamed over ~3 s: a model writing about 50 tokens a second. */
const REPLY_WORDS = 140;
const WORD_GAP_MS = 20;
const KB = 1024;

type Written = { bytes: number; writes: number; byFile: Record<string, number>; walFrames: [page: number, commit: boolean][] };

/**
 * Counts every byte the database worker writes to OPFS: each write through a sync access handle,
 * which is all the opfs-sahpool VFS ever writes with. A handle is named by the path the pool keeps
 * in its file's header (the database, its journal or its WAL).
 */
export async function countWrites(worker: Worker): Promise<void> {
  // tsx names functions with a helper the worker does not have; give it a no-op one.
  await worker.evaluate('globalThis.__name = (f) => f');
  await worker.evaluate(() => {
    type Counted = { bytes: number; writes: number; byFile: Record<string, number>; walFrames: [number, boolean][] };
    const g = globalThis as unknown as { diskWritten?: Counted };
    if (g.diskWritten) return;
    const counted: Counted = (g.diskWritten = { bytes: 0, writes: 0, byFile: {}, walFrames: [] });
    const names = new WeakMap<object, string>();
    const proto = FileSystemSyncAccessHandle.prototype;
    const write = proto.write;
    proto.write = function (this: FileSystemSyncAccessHandle, buffer: AllowSharedBufferSource, options?: FileSystemReadWriteOptions) {
      let name = names.get(this);
      if (name === undefined) {
        const header = new Uint8Array(512);
        this.read(header, { at: 0 });
        name = new TextDecoder().decode(header.subarray(0, Math.max(0, header.indexOf(0)))) || '(pool header)';
        names.set(this, name);
      }
      const bytes = buffer.byteLength;
      counted.bytes += bytes;
      counted.writes += 1;
      counted.byFile[name] = (counted.byFile[name] ?? 0) + bytes;
      // A WAL frame's 24-byte header: its page number, and the database's size if it ends a commit.
      if (name.endsWith('-wal') && bytes === 24) {
        const view = ArrayBuffer.isView(buffer) ? new DataView(buffer.buffer, buffer.byteOffset, 8) : new DataView(buffer as ArrayBuffer, 0, 8);
        counted.walFrames.push([view.getUint32(0), view.getUint32(4) !== 0]);
      }
      return write.call(this, buffer, options);
    };
  });
}

const written = (worker: Worker) => worker.evaluate(() => structuredClone((globalThis as unknown as { diskWritten: Written }).diskWritten));

export async function databaseWorker(page: Page): Promise<Worker> {
  for (let i = 0; i < 100; i++) {
    const worker = page.workers().find((w) => w.url().includes('db.worker'));
    if (worker) return worker;
    await page.waitForTimeout(100);
  }
  throw new Error('bench: no database worker in the page');
}

export async function untilQuiet(page: Page, worker: Worker): Promise<void> {
  let last = -1;
  let stillSince = Date.now();
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
    const { bytes } = await written(worker);
    if (bytes !== last) [last, stillSince] = [bytes, Date.now()];
    else if (Date.now() - stillSince >= SETTLE_MS) return;
    await page.waitForTimeout(250);
  }
  throw new Error('bench: the database never went quiet');
}

/** One Send in the open chat: typed, sent, the reply streamed, analysed, and a quiet moment after. */
const sentLine = (i: number) => `"Line ${i}: the lantern swings and Mira looks to the harbour."`;
/** The UTF-8 bytes of the messages one Send adds: the player's line and the upstream's reply. */
function sentTextBytes(i: number): number {
  const words = STORY_LINE.split(' ').filter(Boolean);
  const reply = Array.from({ length: REPLY_WORDS }, (_, k) => words[k % words.length]).join(' ');
  return new TextEncoder().encode(sentLine(i) + reply).length;
}

async function send(page: Page, i: number): Promise<void> {
  await page.evaluate((line) => {
    const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')!;
    box.value = line;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  }, sentLine(i));
  await page.waitForFunction(() => document.querySelector('.turn[data-status="streaming"]'), undefined, { timeout: 15_000 });
  await page.waitForFunction(() => !document.querySelector('.turn[data-status="streaming"]'), undefined, { timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="updating-memories"]'), undefined, { timeout: 60_000 });
  await page.waitForTimeout(SETTLE_MS);
}

/** Every file of the origin's private file system with its size, read from a page (as a string: no bundler helpers inside). */
const FILES_AT_REST = `(async () => {
  const found = [];
  const walk = async (dir, path) => {
    for await (const [name, handle] of dir.entries()) {
      if (handle.kind === 'directory') await walk(handle, path + name + '/');
      else found.push(path + name + ' ' + ((await handle.getFile()).size / 1e6).toFixed(2) + ' MB');
    }
  };
  await walk(await navigator.storage.getDirectory(), '');
  return found.join(', ');
})()`;

/** Every daily backup kept in the origin dated a day earlier, read from a page: the next open is "tomorrow". */
const AGE_DAILIES = `(async () => {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle('roleplay-engine-backups');
  const names = [];
  for await (const [name] of dir.entries()) names.push(name);
  for (const name of names.sort()) {
    const match = /^roleplay-engine-(\\d{4}-\\d{2}-\\d{2})T(\\d{2})-(\\d{2})-(\\d{2})-(\\d{3})Z(-daily\\.jsonl\\.gz.*)$/.exec(name);
    if (!match) continue;
    const at = Date.parse(match[1] + 'T' + match[2] + ':' + match[3] + ':' + match[4] + '.' + match[5] + 'Z') - 86400000;
    await (await dir.getFileHandle(name)).move('roleplay-engine-' + new Date(at).toISOString().replace(/[:.]/g, '-') + match[6]);
  }
})()`;

/** The daily backups kept in the origin: whole files, shared ones, and files still being written. */
const DAILIES = `(async () => {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle('roleplay-engine-backups').catch(() => null);
  const found = { whole: 0, shared: 0, partial: 0, summaries: 0, bytes: 0 };
  if (dir) for await (const [name, handle] of dir.entries()) {
    if (name.endsWith('.partial')) found.partial++;
    else if (/-daily\\.jsonl\\.gz\\.json$/.test(name)) found.summaries++;
    else if (/-daily\\.jsonl\\.gz$/.test(name)) found.whole++;
    else if (/-daily\\.jsonl\\.gz\\.shared$/.test(name)) found.shared++;
    else continue;
    found.bytes += (await handle.getFile()).size;
  }
  return found;
})()`;
type Dailies = { whole: number; shared: number; partial: number; summaries: number; bytes: number };

/** Waits until the day's daily backup is written and the older ones are shared (what a player leaves on disk). */
async function dailiesSettled(page: Page, day: number): Promise<Dailies> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const found = (await page.evaluate(DAILIES)) as Dailies;
    const kept = found.whole + found.shared;
    if (kept === Math.min(day, BACKUPS_KEPT.daily) && found.summaries === kept && found.partial === 0 && found.whole <= 2) return found;
    if (Date.now() > deadline) throw new Error(`Day ${day}: the daily backups did not settle (${JSON.stringify(found)}).`);
    await page.waitForTimeout(1_000);
  }
}

/**
 * Bytes on disk for the origin, less the app's own cached files (its code, fonts, the service
 * worker), read at rest: the app opened afresh and left quiet (it then empties the WAL's file), then
 * closed, as a player's disk holds the stories between sessions. Read while the app is open, the
 * figure counts ~4 MB more than the files hold: Chromium reserves quota for each open access
 * handle in growing steps (the pool keeps six open) and gives it back when they close.
 */
export async function storedAfterReopen(page: Page): Promise<number> {
  await page.reload();
  await waitForDatabase(page);
  await page.waitForTimeout(5_000);
  // A page of the origin that opens no database: the app's worker and its handles are gone.
  await page.goto(new URL('/robots.txt', page.url()).href);
  await page.waitForTimeout(1_000);
  if (process.env.BENCH_DISK_FILES === '1') console.log(`at rest: ${await page.evaluate(FILES_AT_REST)}`);
  return page.evaluate(async () => {
    const estimate = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: Record<string, number> };
    const details = estimate.usageDetails ?? {};
    return (estimate.usage ?? 0) - (details.caches ?? 0) - (details.serviceWorkerRegistrations ?? 0);
  });
}

/** Every file in the origin's private file system, with its size: where the stored bytes are. */
async function storedFiles(worker: Worker): Promise<string> {
  return worker.evaluate(async () => {
    const found: string[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, path: string) => {
      for await (const [name, handle] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
        if (handle.kind === 'directory') await walk(handle as FileSystemDirectoryHandle, `${path}${name}/`);
        else {
          const size = await (handle as FileSystemFileHandle).getFile().then((f) => f.size, () => -1);
          if (size !== 0) found.push(`${path}${name} ${size < 0 ? '(held)' : `${(size / 1024 / 1024).toFixed(2)} MB`}`);
        }
      }
    };
    await walk(await navigator.storage.getDirectory(), '');
    return found.join(', ');
  });
}

export interface DiskFigures {
  rows: [string, string][];
  /** Bytes one Send wrote, the WAL's copies into the database shared out. */
  perSendBytes: number;
  /** The same with the copies shared out at the app's cadence (see `measureDisk`). */
  longRunBytes: number;
  /** Storage over the UTF-8 bytes of the messages. */
  storageRatio: number;
}

/**
 * A story of `turns` turns restored, then Sends in it, counted; the storage read afresh at the end.
 * Then (with `days` over 1) the story played on a few Sends a day, and the storage read again with
 * the daily backups a player who plays every day keeps.
 */
export async function measureDisk(url: string, turns: number, days = DAYS): Promise<DiskFigures> {
  let context: BrowserContext | undefined;
  try {
    ({ context } = await launchBrowser());
    await context.addInitScript('globalThis.__name = (f) => f');
    const page = await openTab(context, `${url}/chats${MADE_WITH}`);
    const { longChat, textBytes } = await restoreStories(page, turns);
    await page.goto(`${url}/chats/${longChat}${MADE_WITH}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const worker = await databaseWorker(page);
    await countWrites(worker);
    // The restored story is indexed for search in the background: measured Sends start after it.
    await untilQuiet(page, worker);
    const sendOnce = async (i: number): Promise<Written> => {
      const before = await written(worker);
      await send(page, i);
      const after = await written(worker);
      const byFile: Record<string, number> = {};
      for (const [file, bytes] of Object.entries(after.byFile)) byFile[file] = bytes - (before.byFile[file] ?? 0);
      return { bytes: after.bytes - before.bytes, writes: after.writes - before.writes, byFile, walFrames: after.walFrames.slice(before.walFrames.length) };
    };
    // Until the WAL has been copied into the database once: that first copy carries the restore's
    // own pages, which are not a Send's.
    const copiedInto = (one: Written) => Object.entries(one.byFile).some(([file, bytes]) => !file.endsWith('-wal') && bytes > 0);
    const warmUps: Written[] = [];
    while (warmUps.length < 40 && !(warmUps.length && copiedInto(warmUps.at(-1)!))) warmUps.push(await sendOnce(warmUps.length));
    const perSend: Written[] = [];
    for (let i = 0; i < SENDS; i++) perSend.push(await sendOnce(100 + i));
    const total = perSend.reduce((sum, one) => sum + one.bytes, 0);
    const copied = perSend.reduce((sum, one) => sum + Object.entries(one.byFile).reduce((n, [file, bytes]) => n + (file.endsWith('-wal') ? 0 : bytes), 0), 0);
    const worst = perSend.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const typical = [...perSend].sort((a, b) => a.bytes - b.bytes)[Math.floor(SENDS / 2)]!;
    const anatomy = await databaseAnatomy(page, typical.walFrames);
    // What each page a WAL copy writes costs: the database's own page.
    const pageKb = (await storedPageBytes(page)) / KB;
    // A checkpoint copies each page the WAL holds once, however many commits wrote it: the pages a
    // window of Sends touched, shared out over them, is what copying every that many Sends costs.
    const copiedEvery = [1, 5, 10, 20, 40].filter((k) => k <= SENDS).map((k) => {
      let pages = 0;
      let windows = 0;
      for (let at = 0; at + k <= SENDS; at += k, windows++) pages += new Set(perSend.slice(at, at + k).flatMap((one) => one.walFrames.map(([p]) => p))).size;
      return `every ${k}: ${fmt((pages / windows / k) * pageKb)} KB`;
    });
    // The mean above holds a copy or none, by chance of where 20 Sends fall: the app copies every
    // WAL_PAGES_BEFORE_COPY pages, so over a long story a Send pays a copy's bytes over the Sends
    // between two copies. A copy seen is counted as it was (it carries every page since the last
    // one); with none seen, what the next would write: the distinct pages of every Send since the
    // last copy (warm-ups included), shared over them (an overestimate while they are fewer than
    // the Sends between two copies: a longer run shares more of its pages).
    const walBytes = (total - copied) / SENDS;
    const sendsPerCopy = WAL_PAGES_BEFORE_COPY / (perSend.reduce((n, one) => n + one.walFrames.length, 0) / SENDS);
    const copiesSeen = perSend.filter(copiedInto).length;
    const sinceCopy = [...warmUps, ...perSend].slice(warmUps.findLastIndex(copiedInto) + 1);
    const copyShare = copiesSeen
      ? copied / copiesSeen / sendsPerCopy
      : (new Set(sinceCopy.flatMap((one) => one.walFrames.map(([p]) => p))).size * pageKb * KB) / Math.min(sinceCopy.length, sendsPerCopy);
    const longRun = walBytes + copyShare;
    if (process.env.BENCH_DISK_FILES === '1') console.log(`${turns} turns: ${await storedFiles(worker)}`);
    const stored = await storedAfterReopen(page);
    const label = turns.toLocaleString('en-US');
    let sentText = [...warmUps.keys()].reduce((n, i) => n + sentTextBytes(i), 0) + perSend.reduce((n, _, i) => n + sentTextBytes(100 + i), 0);
    const daysRows: [string, string][] = [];
    if (days > 1) {
      let dailies = (await page.evaluate(DAILIES)) as Dailies;
      for (let day = 2; day <= days; day++) {
        await page.evaluate(AGE_DAILIES);
        await page.goto(`${url}/chats/${longChat}${MADE_WITH}`);
        await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 60_000 });
        for (let i = 0; i < DAY_SENDS; i++) {
          await send(page, 1_000 + day * 100 + i);
          sentText += sentTextBytes(1_000 + day * 100 + i);
        }
        await page.reload(); // the first open of the day writes its daily backup
        dailies = await dailiesSettled(page, day);
      }
      const after = await storedAfterReopen(page);
      const text = textBytes + sentText;
      daysRows.push(
        [`${label} turns: the daily backups after ${days} days of play, ${DAY_SENDS} Sends a day (${dailies.whole} whole, ${dailies.shared} shared)`, `${fmt(dailies.bytes / KB / KB, 2)} MB`],
        [`${label} turns: storage / text after those ${days} days, every daily backup kept`, `${fmt(after / KB / KB, 1)} MB / ${fmt(text / KB / KB, 1)} MB = ${fmt(after / text, 1)}x`],
      );
    }
    const rows: [string, string][] = [
      [`${label} turns: one Send (reply streamed, analysed), bytes written, mean of ${SENDS} with the WAL's copies into the database (target 150 KB)`, `${fmt(total / SENDS / KB)} KB (of which copies ${fmt(copied / SENDS / KB)} KB)`],
      [`${label} turns: the same over a long story, the WAL copied every ~${fmt(sendsPerCopy)} Sends (${copiesSeen ? `${copiesSeen} copy seen` : `no copy seen: the next one's pages over the ${sinceCopy.length} Sends since the last`})`, `${fmt(longRun / KB)} KB (WAL ${fmt(walBytes / KB)} KB, copies ${fmt(copyShare / KB)} KB)`],
      [`${label} turns: the most one of those Sends wrote`, `${fmt(worst.bytes / KB)} KB in ${worst.writes} writes`],
      [`${label} turns: a typical Send's WAL frames by B-tree (${anatomy.commits} commits)`, anatomy.frames],
      [`${label} turns: a Send's share of the copies into the database, were the WAL copied every n Sends`, copiedEvery.join(', ')],
      [`${label} turns: where the database's bytes are (MB)`, anatomy.stored],
      [`${label} turns: storage / text of the messages (target 4x)`, `${fmt(stored / KB / KB, 1)} MB / ${fmt(textBytes / KB / KB, 1)} MB = ${fmt(stored / textBytes, 1)}x`],
      ...daysRows,
    ];
    return { rows, perSendBytes: total / SENDS, longRunBytes: longRun, storageRatio: stored / textBytes };
  } finally {
    await context?.close();
  }
}

/**
 * Storage at rest for the same story with each reply analysed as in play (a feeling with a fact,
 * a memory: `benchStoryBackup`), which the Sends above leave out of the restored turns.
 */
async function measureAnalysedStorage(url: string, turns: number): Promise<[string, string]> {
  const { context } = await launchBrowser();
  try {
    const page = await openTab(context, `${url}/chats${MADE_WITH}`);
    const { backup, textBytes } = await benchStoryBackup(turns, { analysed: true });
    await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
    const worker = await databaseWorker(page);
    await countWrites(worker);
    await untilQuiet(page, worker);
    const stored = await storedAfterReopen(page);
    return [`${turns.toLocaleString('en-US')} turns, each reply analysed: storage / text of the messages (target 4x)`, `${fmt(stored / KB / KB, 1)} MB / ${fmt(textBytes / KB / KB, 1)} MB = ${fmt(stored / textBytes, 1)}x`];
  } finally {
    await context.close();
  }
}

/** The page's database as a copy in Node's SQLite, for dbstat to read. */
async function databaseCopy(page: Page): Promise<Database> {
  const bytes = await page.evaluate(async () => {
    const blob = (await (globalThis as any).roleplayEngine.admin.databaseFile()) as Blob;
    return [...new Uint8Array(await blob.arrayBuffer())];
  });
  const sqlite = await loadSqlite();
  const db = new sqlite.oo1.DB(':memory:', 'c');
  const data = sqlite.wasm.allocFromTypedArray(new Uint8Array(bytes));
  const flags = sqlite.capi.SQLITE_DESERIALIZE_FREEONCLOSE | sqlite.capi.SQLITE_DESERIALIZE_RESIZEABLE;
  db.checkRc(sqlite.capi.sqlite3_deserialize(db.pointer!, 'main', data, bytes.length, bytes.length, flags));
  return db;
}

/**
 * Which tables and indexes a Send's WAL frames were pages of, and the database's largest ones in
 * MB: the database file read by SQLite's dbstat.
 */
async function databaseAnatomy(page: Page, frames: [number, boolean][]): Promise<{ commits: number; frames: string; stored: string }> {
  const db = await databaseCopy(page);
  try {
    const owner = new Map<number, string>();
    const kind = new Map<number, string>();
    for (const row of db.selectObjects('SELECT name, pageno, pagetype FROM dbstat')) {
      owner.set(row.pageno as number, row.name as string);
      kind.set(row.pageno as number, String(row.pagetype));
    }
    const counts = new Map<string, number>();
    for (const [page] of frames) {
      const name = owner.get(page) ?? (page === 1 ? 'header' : 'free');
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    if (process.env.BENCH_DISK_COMMITS === '1') {
      let one: string[] = [];
      for (const [page, commit] of frames) {
        one.push(`${owner.get(page) ?? (page === 1 ? 'header' : 'free')}#${page}${kind.get(page)?.[0] ?? ''}`);
        if (!commit) continue;
        console.log(`commit of ${one.length} frames: ${one.join(', ')}`);
        one = [];
      }
    }
    const stored = db
      .selectObjects('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12')
      .map((row) => `${row.name} ${fmt((row.bytes as number) / KB / KB, 2)}`)
      .concat(`free pages ${fmt(((db.selectValue('PRAGMA freelist_count') as number) * (db.selectValue('PRAGMA page_size') as number)) / KB / KB, 2)}`)
      .join(', ');
    return {
      commits: frames.filter(([, commit]) => commit).length,
      frames: [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n}`).join(', ') || 'none',
      stored,
    };
  } finally {
    db.close();
  }
}

/** The model the Sends talk to: a reply of REPLY_WORDS streamed word by word, and the analysis as the demo model writes it. */
export async function storyUpstream() {
  const upstream = await startFakeUpstream();
  upstream.setFallback(async (req, res) => {
    if (!req.path.endsWith('/chat/completions')) return json(res, 200, { data: [] });
    const body = req.body as CompletionRequest;
    if (!body.stream) return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
    startSse(res);
    const words = STORY_LINE.split(' ').filter(Boolean);
    for (let i = 0; i < REPLY_WORDS; i++) {
      res.write(sseChunk(`${i ? ' ' : ''}${words[i % words.length]}`));
      await new Promise((r) => setTimeout(r, WORD_GAP_MS));
    }
    res.end('data: [DONE]\n\n');
  });
  return upstream;
}

/** What the disk pays: bytes one Send writes, and storage against the text it holds. */
export async function benchDisk(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
  }
  const upstream = await storyUpstream();
  const app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
  try {
    const rows: [string, string][] = [];
    for (const turns of SIZES) rows.push(...(await measureDisk(app.url, turns)).rows);
    if (process.env.BENCH_DISK_ANALYSED !== '0') for (const turns of SIZES) rows.push(await measureAnalysedStorage(app.url, turns));
    printTable(`Disk (Debian Chromium, headless, OPFS opfs-sahpool, production build, fake upstream${MADE_WITH ? `, a database made with ${process.env.BENCH_DISK_PAGE_BYTES}-byte pages` : ''})`, rows);
  } finally {
    await app.relay.close();
    await upstream.close();
  }
}
