import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, openTab, startApp, storyReady } from './harness.ts';
import { CHAT_LIST_FILE } from '../../src/engine/chat-list-snapshot.ts';

let app: Awaited<ReturnType<typeof startApp>>;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.relay.close());

/** Long enough that the database is surely still opening while the test looks at the list. */
const HELD_OPEN = 60_000;

const listed = (page: Page) => page.getByRole('list', { name: 'Chats' }).locator('.card-title strong');
const engineCall = (page: Page, method: string, ...args: unknown[]) =>
  page.evaluate(([method, args]) => (globalThis as any).roleplayEngine.engine[method as string](...(args as unknown[])), [method, args] as const);
const databaseState = (page: Page) => page.evaluate(() => (globalThis as any).roleplayEngine?.status().database?.kind ?? null);

/** The list file the leader keeps, as the page reads it (null when there is none). */
const keptList = (page: Page) =>
  page.evaluate(async (name) => {
    const root = await navigator.storage.getDirectory();
    const file = await root.getFileHandle(name).catch(() => null);
    return file ? (await file.getFile()).text() : null;
  }, CHAT_LIST_FILE);

const writeKeptList = (page: Page, text: string) =>
  page.evaluate(
    async ([name, text]) => {
      const root = await navigator.storage.getDirectory();
      const writable = await (await root.getFileHandle(name, { create: true })).createWritable();
      await writable.write(text);
      await writable.close();
    },
    [CHAT_LIST_FILE, text] as const,
  );

it('paints the chat list as the database holds it before the database has opened, and only a whole list of this database', async () => {
  const { context } = await launchBrowser();
  const first = await openTab(context, `${app.url}/chats`);
  const kept = await storyReady(first);
  const gone = await storyReady(first);
  await engineCall(first, 'deleteChat', gone);
  const titles = (await engineCall(first, 'listChats')) as { id: string; title: string }[];
  expect(titles.map((c) => c.id)).toEqual([kept]);
  // The leader keeps the file in step with the list: the deleted chat leaves it too.
  await expect.poll(async () => JSON.parse((await keptList(first)) ?? '{"chats":[]}').chats.map((c: { id: string }) => c.id), { timeout: 15_000 }).toEqual([kept]);
  await first.close();

  // A cold start whose database takes a minute to open: the list is there, exactly, all the same.
  const cold = await context.newPage();
  await cold.goto(`${app.url}/chats?e2e-open-delay=${HELD_OPEN}`);
  await expect.poll(() => listed(cold).allTextContents(), { timeout: 15_000 }).toEqual([titles[0]!.title]);
  expect(await databaseState(cold)).toBeNull();
  await expect(cold.getByRole('link', { name: new RegExp(titles[0]!.title) }).getAttribute('href')).resolves.toBe(`/chats/${kept}`);

  // A file cut short paints nothing: the tab says the stories are opening until the database answers.
  const whole = (await keptList(cold))!;
  await writeKeptList(cold, whole.slice(0, whole.length - 5));
  await cold.reload();
  await expect.poll(() => cold.getByText('Opening your stories').count(), { timeout: 15_000 }).toBe(1);
  expect(await listed(cold).count()).toBe(0);

  // Nor does a list kept by another database.
  await writeKeptList(cold, whole.replace(/"dbId":"[^"]+"/, '"dbId":"another-database"'));
  await cold.reload();
  await expect.poll(() => cold.getByText('Opening your stories').count(), { timeout: 15_000 }).toBe(1);
  expect(await listed(cold).count()).toBe(0);

  // A list that is not the database's (as if the tab were closed between a commit and the file's
  // write) shows first, and the list read from the database takes its place; the file is put right.
  const stale = JSON.parse(whole) as { chats: { title: string }[] };
  stale.chats[0]!.title = 'A story long gone';
  await writeKeptList(cold, JSON.stringify(stale));
  await cold.goto(`${app.url}/chats`);
  await expect.poll(() => listed(cold).allTextContents(), { timeout: 15_000 }).toEqual([titles[0]!.title]);
  expect(await databaseState(cold)).toBe('ready');
  await expect.poll(async () => JSON.parse((await keptList(cold))!).chats[0].title, { timeout: 15_000 }).toBe(titles[0]!.title);
  expect((cold as any).errors ?? []).toEqual([]);
  await context.close();
});

it('opens a chat from the list with its story laid out at once when its first page was read ahead, and never a page gone stale', async () => {
  const { context } = await launchBrowser();
  const page = await openTab(context, `${app.url}/chats`);
  const chatId = await storyReady(page);
  const { turns } = (await engineCall(page, 'transcript', chatId, { limit: 5 })) as { turns: { turnId: string; text: string }[] };
  const opening = turns[0]!;
  /** On the list for a moment (its top chats' first pages are read while it sits idle), then the chat clicked. */
  const openAfterAMoment = async () => {
    await page.goto(`${app.url}/chats`);
    await page.locator(`a[href="/chats/${chatId}"]`).waitFor();
    await page.waitForFunction(() => (globalThis as any).roleplayEngine?.status().database?.kind === 'ready', undefined, { timeout: 30_000 });
    await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => setTimeout(resolve, 500))));
  };
  // What the page shows before any other task runs after the click (an answer from the database
  // worker is a task of its own): the story, read ahead.
  const clickAndLookAtOnce = () =>
    page.evaluate(async (chatId) => {
      document.querySelector<HTMLAnchorElement>(`a[href="/chats/${chatId}"]`)!.click();
      for (let i = 0; i < 10; i++) await Promise.resolve();
      return [...document.querySelectorAll('.turn')].map((turn) => turn.textContent ?? '');
    }, chatId);

  await openAfterAMoment();
  const shown = await clickAndLookAtOnce();
  expect(shown).toHaveLength(1);
  expect(shown[0]).toContain(opening.text.slice(0, 20));

  // The opening rewritten after its page was read ahead: the page kept is dropped, and the chat
  // opens on what the story says now, never on what it said.
  await openAfterAMoment();
  await engineCall(page, 'editTurn', chatId, opening.turnId, 'The storm has passed; the harbour is calm.');
  const seen: string[] = [];
  await page.exposeFunction('sawTurn', (text: string) => seen.push(text));
  await page.evaluate(() => {
    new MutationObserver(() => document.querySelectorAll('.turn').forEach((turn) => (globalThis as any).sawTurn(turn.textContent ?? ''))).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.locator(`a[href="/chats/${chatId}"]`).click();
  await expect.poll(() => page.locator('.turn').first().textContent(), { timeout: 15_000 }).toContain('The storm has passed; the harbour is calm.');
  expect(seen.filter((text) => text.includes(opening.text.slice(0, 20)))).toEqual([]);
  await context.close();
});
