import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import { freshDatabaseName, startCouch, type CouchServer } from '../support/couch-server.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { browsers, exportLog, message, openTab, type ServedApp, startApp } from './harness.ts';

/**
 * A phone receiving a long story (several pages of the server's changes) while its player opens
 * the chat and writes in it. The server holds the pull after its first page until the test lets
 * it go: a slow network, made certain.
 */
const EXCHANGES = 300;
let couch: CouchServer;
let app: ServedApp;
let database: string;
let changesAsked = 0;
let letThrough: () => void = () => undefined;
let held = Promise.resolve();
/** A fresh server database for the next test, whose pulls are held after their first page. */
async function holdPullsAfterFirstPage(): Promise<void> {
  changesAsked = 0;
  held = new Promise<void>((resolve) => (letThrough = resolve));
  database = freshDatabaseName();
  await app?.relay.close();
  app = await startApp({ SYNC_COUCHDB_URL: couch.url, SYNC_DATABASE: database });
}

beforeAll(async () => {
  couch = await startCouch({
    gate: async ({ url }) => {
      if (url.includes('/_changes') && ++changesAsked >= 2) await held;
    },
  });
});
afterAll(async () => {
  letThrough();
  await app.relay.close();
  await couch.close();
});
const launch = browsers();

/** The laptop's story, written an hour ago and already on the server. */
async function laptopStory(): Promise<{ chatId: string; events: number }> {
  const start = Date.now() - 3_600_000;
  let tick = 0;
  const { engine } = await openTestEngine({ now: () => start + tick++ });
  engine.saveYou({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.' });
  const bot = engine.saveBot({ name: 'Mira', persona: 'A wry captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: 'Old friends.', kickoff: '' }, null);
  const chatId = engine.startChat(bot, defaultKickoff({ name: 'Mira', initialRelationship: 'Old friends.' }, new Date(2026, 0, 1, 20)));
  const drafts: EventDraft[] = [];
  for (let i = 0; i < EXCHANGES; i++) {
    const turnId = engine.newId();
    drafts.push(
      // As the app writes it: each line follows the reply before it.
      i === 0 ? draft.userTurn(chatId, engine.newId(), `"Turn ${i}."`) : { ...draft.userTurn(chatId, engine.newId(), `"Turn ${i}."`), causeDraft: drafts.length - 1 },
      draft.assistantStarted(chatId, turnId, bot),
      { ...draft.assistantTurn(chatId, turnId, bot, `Mira answers turn ${i}.`), causeDraft: drafts.length + 1 },
    );
  }
  engine.append(drafts);
  const remote = `${couch.url}/${database}`;
  const replicator = createReplicator({ couch: couchDatabase(remote, couch.fetch), remote, log: engine.sync, deviceId: () => engine.identify().dbId });
  await replicator.prepare();
  await replicator.push();
  return { chatId, events: engine.eventsAfter(0, 1_000_000).length };
}

/** A fresh phone, its chat opened from the list as soon as the first page brought it. */
async function phoneInChat(chatId: string): Promise<Page> {
  const { context } = await launch();
  const phone = await openTab(context, `${app.url}/settings`);
  await expect.poll(() => phone.evaluate(async (id) => Boolean(await (globalThis as any).roleplayEngine.engine.chatState(id)), chatId), { timeout: 20_000 }).toBe(true);
  await phone.getByRole('link', { name: 'Chats', exact: true }).click();
  await phone.locator('ul[aria-label="Chats"] a').first().click();
  await expect.poll(() => phone.getByTestId('story-arriving').count(), { timeout: 15_000 }).toBe(1);
  return phone;
}

const userLines = async (page: Page) =>
  (await exportLog(page)).events.filter((e) => e.kind === 'user_turn').map((e) => (JSON.parse(e.payload) as { text: string }).text);

describe('a chat opened while its story is still arriving', () => {
  it('says so, holds a Send until the story is whole here, then sends it after the last turn', async () => {
    await holdPullsAfterFirstPage();
    const { chatId, events } = await laptopStory();
    const phone = await phoneInChat(chatId);
    const arriving = phone.getByTestId('story-arriving');
    await expect.poll(() => arriving.textContent(), { timeout: 15_000 }).toMatch(/still arriving from your other devices: [\d,]+ of [\d,]+ events/);
    expect(await arriving.textContent()).toContain(`of ${events.toLocaleString('en')} events`);

    await message(phone).fill('"Are we there yet?"');
    await message(phone).press('Enter');
    const waiting = phone.getByRole('status').filter({ hasText: 'Sends when the whole story has arrived here.' });
    await expect.poll(() => waiting.count(), { timeout: 15_000 }).toBe(1);
    expect(await waiting.getByRole('button', { name: 'Send now anyway' }).count()).toBe(1);
    expect(await userLines(phone)).not.toContain('"Are we there yet?"');
    expect(await message(phone).inputValue()).toBe('"Are we there yet?"');

    // The rest arrives: the note goes, the line is sent, and it follows the laptop's last turn.
    letThrough();
    await expect.poll(() => arriving.count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(async () => (await userLines(phone)).length, { timeout: 30_000 }).toBe(EXCHANGES + 1);
    expect((await userLines(phone)).slice(-2)).toEqual([`"Turn ${EXCHANGES - 1}."`, '"Are we there yet?"']);
    await expect.poll(() => phone.locator('.turn.user').last().textContent(), { timeout: 15_000 }).toContain('Are we there yet?');
    await expect.poll(() => phone.locator('.turn.assistant:not([data-status="streaming"])').last().textContent(), { timeout: 20_000 }).toContain('demo model');
    await expect.poll(() => message(phone).inputValue(), { timeout: 15_000 }).toBe('');
  });

  it('"Send now anyway" sends at once, answered from what is here; the rest then arrives and nothing is lost', async () => {
    await holdPullsAfterFirstPage();
    const { chatId } = await laptopStory();
    const phone = await phoneInChat(chatId);
    await message(phone).fill('"Land ho!"');
    await message(phone).press('Enter');
    const anyway = phone.getByRole('button', { name: 'Send now anyway' });
    await expect.poll(() => anyway.count(), { timeout: 15_000 }).toBe(1);
    await anyway.click();
    await expect.poll(async () => (await userLines(phone)).includes('"Land ho!"'), { timeout: 20_000 }).toBe(true);
    // Still arriving: the line went with part of the story here.
    expect(await phone.getByTestId('story-arriving').count()).toBe(1);
    expect((await userLines(phone)).length).toBeLessThan(EXCHANGES);
    await expect.poll(() => message(phone).inputValue(), { timeout: 15_000 }).toBe('');

    letThrough();
    await expect.poll(() => phone.getByTestId('story-arriving').count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(async () => (await userLines(phone)).length, { timeout: 30_000 }).toBe(EXCHANGES + 1);
    expect(await userLines(phone)).toContain(`"Turn ${EXCHANGES - 1}."`);
    expect((phone as Page & { errors: string[] }).errors).toEqual([]);
  });
});
