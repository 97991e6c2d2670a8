import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { loadConfig } from '../../relay/config.ts';
import { createRelay, type Relay, type RelayDeps } from '../../relay/server.ts';
import { DATABASE_LOCK } from '../../src/worker/protocol.ts';
import { POLICY_VIOLATION_PREFIX } from '../../src/browser/policy-violations.ts';
import { findChromium } from '../chromium-path.mjs';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../support/fake-upstream.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { removeScratch, scratchDir } from '../support/scratch.ts';

export const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
export const CHROMIUM = findChromium() ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The real relay serving the real build, on a free loopback port, with the demo model (or a given upstream). */
export async function startApp(
  env: Record<string, string> = {},
  options: { port?: number; dist?: string; imageProxy?: RelayDeps['imageProxy'] } = {},
): Promise<{ url: string; relay: Relay; logs: string[]; port: number }> {
  const logs: string[] = [];
  const config = loadConfig({ RELAY_PORT: String(options.port ?? 0), ...env }, options.dist ?? DIST);
  const relay = createRelay(config, {
    log: { info: (m) => logs.push(m), error: (m) => logs.push(m) },
    demoDelayMs: 5,
    ...(options.imageProxy ? { imageProxy: options.imageProxy } : {}),
  });
  const { url, port: bound } = await relay.listen();
  return { url, relay, logs, port: bound };
}

/**
 * Every refusal by the app's Content-Security-Policy, in any tab or worker of any browser a test
 * launched: the app logs each one (a worker's too), and Chromium logs a page's by itself. Any such
 * line fails the test it happened in, unless the test provokes one on purpose.
 */
const policyViolations: string[] = [];
let violationsExpected = false;
const POLICY_VIOLATION = new RegExp(`^${POLICY_VIOLATION_PREFIX}|Content Security Policy|requires 'Trusted(HTML|Script|ScriptURL)' assignment|Trusted ?Types? policy`);
export const isPolicyViolation = (line: string) => POLICY_VIOLATION.test(line);

/** For a test that makes the browser refuse something on purpose (a frame from another site). */
export function expectPolicyViolations(): void {
  violationsExpected = true;
}

// The benches drive the app through this harness too, outside any test: there is no test to fail.
if (process.env.VITEST) {
  afterEach(() => {
    const found = policyViolations.splice(0);
    const expected = violationsExpected;
    violationsExpected = false;
    if (!expected) expect(found, 'the Content-Security-Policy refused something during this test').toEqual([]);
  });
}

export const freshProfile = () => scratchDir('rpe-profile-');

// Registered before any test file's own hooks, so it runs after them: their browsers are closed.
if (process.env.VITEST) afterAll(removeScratch);
else process.once('exit', removeScratch);

/** Debian's Chromium with a profile directory of our own, so a test can close and reopen "the browser". */
export async function launchBrowser(profile = freshProfile(), options: { locale?: string } = {}): Promise<{ context: BrowserContext; profile: string }> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 800 },
    // The interface follows the browser's language: English unless a test asks for another.
    locale: options.locale ?? 'en-US',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.on('console', (message) => {
    if (isPolicyViolation(message.text())) policyViolations.push(message.text());
  });
  return { context, profile };
}

/** Opens the app in a new tab and waits until this tab's worker reached a database (leading or following). */
export async function openTab(context: BrowserContext, url: string): Promise<Page> {
  const page = context.pages().find((p) => p.url() === 'about:blank') ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(url);
  await waitForDatabase(page);
  return page;
}

export async function waitForDatabase(page: Page, kind = 'ready') {
  await page.waitForFunction(
    (expected) => (globalThis as { roleplayEngine?: { status(): { database: { kind: string } | null } } }).roleplayEngine?.status().database?.kind === expected,
    kind,
    { timeout: 30_000 },
  );
}

export function role(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as { roleplayEngine: { status(): { role: string } } }).roleplayEngine.status().role);
}

/** Creates a bot through the UI, as a user would. */
export async function createBot(page: Page, name: string, persona = `${name} is here.`) {
  await page.getByRole('link', { name: 'Bots', exact: true }).click();
  await page.getByRole('link', { name: 'New bot' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Persona').fill(persona);
  await page.getByRole('button', { name: 'Create bot' }).click();
  // Saving leads on to the kickoff; the tests that use this look at the list of bots.
  await page.getByRole('link', { name: 'Bots', exact: true }).click();
}

export const botList = (page: Page) => page.getByRole('list', { name: 'Bots' }).locator('strong');

/** The events the database holds, read through the app's own client. */
export function exportLog(page: Page): Promise<{ events: { kind: string; payload: string }[] }> {
  return page.evaluate(() =>
    (globalThis as unknown as { roleplayEngine: { engine: { exportLog(): Promise<{ events: { kind: string; payload: string }[] }> } } }).roleplayEngine.engine.exportLog(),
  );
}

/** A you (Ada), a bot (Mira) and a started chat, made through the app's own client; returns the chat id. */
export async function storyReady(page: Page): Promise<string> {
  const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: 'Old friends.' }, new Date(2026, 0, 1, 20));
  return page.evaluate(async (kickoff) => {
    const engine = (globalThis as any).roleplayEngine.engine;
    await engine.saveYou({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.' });
    const botId = await engine.saveBot(
      { name: 'Mira', persona: 'A wry captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: 'Old friends.', kickoff: 'The storm breaks.' },
      null,
    );
    return engine.startChat(botId, kickoff);
  }, kickoff);
}

/** The composer's message box: what players type into. */
export const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
/** The newest reply in the transcript. */
export const lastReply = (page: Page) => page.locator('.turn.assistant').last();

/** Opens a message's "Message actions" menu and chooses `name` in it. */
export async function messageAction(turn: Locator, name: string): Promise<void> {
  await turn.getByRole('button', { name: 'Message actions' }).click();
  await turn.page().getByRole('menu', { name: 'Message actions' }).getByRole('menuitem', { name, exact: true }).click();
}

/** Chooses `name` in the chat header's "Chat actions" menu. */
export async function chatAction(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Chat actions' }).click();
  await page.getByRole('menu', { name: 'Chat actions' }).getByRole('menuitem', { name, exact: true }).click();
}

/** The composer's "More ways to reply" menu item `name` (Impersonate, Continue, Regenerate), its menu opened. */
export async function replyOption(page: Page, name: string): Promise<Locator> {
  const more = page.getByRole('button', { name: 'More ways to reply' });
  if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
  return page.getByRole('menu', { name: 'More ways to reply' }).getByRole('menuitem', { name, exact: true });
}

/** The names of what a menu button offers: its menu opened, read, and closed again with Esc. */
export async function menuOffers(opener: Locator): Promise<string[]> {
  await opener.click();
  const menu = opener.page().locator(`#${await opener.getAttribute('aria-controls')}`);
  const names = await menu.getByRole('menuitem').evaluateAll((items) => items.map((item) => item.firstElementChild?.textContent ?? ''));
  await opener.page().keyboard.press('Escape');
  return names;
}

/** What the composer's menu and the newest message's menu offer, together. */
export async function offeredForTheLatest(page: Page): Promise<string[]> {
  return [
    ...(await menuOffers(page.getByRole('button', { name: 'More ways to reply' }))),
    ...(await menuOffers(page.locator('.turn').last().getByRole('button', { name: 'Message actions' }))),
  ];
}

/** Sends a line from the composer (Enter) and waits until the newest reply contains `reply`. */
export async function say(page: Page, line: string, reply: string): Promise<void> {
  // The new reply, not the one before it (which may hold the same words): its row first, then its words.
  const before = await page.locator('.turn.assistant').count();
  await message(page).fill(line);
  await message(page).press('Enter');
  await expect.poll(() => page.locator('.turn.assistant').count(), { timeout: 20_000 }).toBeGreaterThan(before);
  await expect.poll(() => lastReply(page).textContent(), { timeout: 20_000 }).toContain(reply);
}

/**
 * A tab on a fresh story (storyReady) showing its chat: the drawer open when asked, and `before`
 * run on the story before the chat opens (a pin, a setting). Returns the tab and the chat id.
 */
export async function openStoryChat(
  context: BrowserContext,
  url: string,
  options: { drawerOpen?: boolean; before?: (page: Page, chatId: string) => Promise<unknown> } = {},
): Promise<{ page: Page; chatId: string }> {
  const page = await openTab(context, `${url}/`);
  await expect.poll(() => role(page), { timeout: 15_000 }).toBe('leader');
  const chatId = await storyReady(page);
  if (options.drawerOpen) await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
  await options.before?.(page, chatId);
  await page.goto(`${url}/chats/${chatId}`);
  return { page, chatId };
}

/**
 * Runs `touch` (inside `page`) on the app's OPFS files once no closed tab still holds them. A tab
 * that was just closed releases the database lock when its worker ends, and its sync access handles
 * a moment later (longer on a busy machine): so wait for the lock, then retry while the files say
 * they are in use. Bounded; fails with the last error. `page` must not run the app itself.
 */
export async function touchDatabaseFiles<T>(page: Page, touch: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const lockFree = page.evaluate((lock) => navigator.locks.request(lock, () => true), DATABASE_LOCK);
  const timedOut = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`the database lock was still held after ${timeoutMs} ms`)), timeoutMs).unref(),
  );
  await Promise.race([lockFree, timedOut]);
  for (;;) {
    try {
      return await page.evaluate(touch);
    } catch (error) {
      const inUse = /NoModificationAllowedError|InvalidModificationError|InvalidStateError/.test(String(error));
      if (!inUse || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The backups the app keeps in this browser (its OPFS backups directory), by name. */
export function keptBackups(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('roleplay-engine-backups', { create: true });
    const names: string[] = [];
    for await (const [name] of (dir as unknown as { entries(): AsyncIterable<[string, unknown]> }).entries()) names.push(name);
    return names.sort();
  });
}

export type ServedApp = Awaited<ReturnType<typeof startApp>>;

/** The app served for every test of this file: started before the first, closed after the last. */
export function servedApp(env: Record<string, string> = {}, options: Parameters<typeof startApp>[1] = {}): ServedApp {
  const served = {} as ServedApp;
  beforeAll(async () => void Object.assign(served, await startApp(env, options)));
  afterAll(() => served.relay?.close());
  return served;
}

/**
 * The app served for this file's tests over a fake model upstream that answers with `handler`
 * (the relay holds a key, as with Featherless): both started before the first test, closed after the last.
 * `app` is filled in place; read `upstream` through the returned object, once the hooks have run.
 */
export function servedOnFakeModel(handler: FakeHandler): { app: ServedApp; upstream: FakeUpstream } {
  const served = { app: {} as ServedApp, upstream: undefined as unknown as FakeUpstream };
  beforeAll(async () => {
    served.upstream = await startFakeUpstream();
    served.upstream.setFallback(handler);
    Object.assign(served.app, await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: served.upstream.url }));
  });
  afterAll(async () => {
    await served.app.relay?.close();
    await served.upstream?.close();
  });
  return served;
}

/** `launchBrowser` for this file's tests: every browser a test opens is closed after it. */
export function browsers(): typeof launchBrowser {
  const open: BrowserContext[] = [];
  afterEach(async () => {
    for (const context of open.splice(0)) await context.close();
  });
  return async (profile, options) => {
    const launched = await launchBrowser(profile, options);
    open.push(launched.context);
    return launched;
  };
}

/** The page size the database is stored with: its file's header, or its WAL's while everything is still in the WAL. */
export const storedPageBytes = (page: Page): Promise<number> =>
  page.evaluate(async () => {
    const POOL_HEADER = 4096;
    const pool = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('roleplay-engine')).getDirectoryHandle('.opaque');
    let inFile = 0;
    let inWal = 0;
    for await (const handle of (pool as unknown as { values(): AsyncIterable<FileSystemFileHandle> }).values()) {
      const file = await handle.getFile();
      const name = new TextDecoder().decode(new Uint8Array(await file.slice(0, 512).arrayBuffer())).split('\0')[0]!;
      const head = new DataView(await file.slice(POOL_HEADER, POOL_HEADER + 100).arrayBuffer());
      if (name.endsWith('.sqlite3') && head.byteLength >= 100) inFile = head.getUint16(16) === 1 ? 65_536 : head.getUint16(16);
      if (name.endsWith('-wal') && head.byteLength >= 32) inWal = head.getUint32(8);
    }
    return inFile || inWal;
  });
