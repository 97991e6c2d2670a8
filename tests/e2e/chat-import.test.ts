import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { withTextChunks } from '../../src/engine/cards/png.ts';
import { browsers, exportLog, freshProfile, openTab, servedApp, waitForDatabase } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

function file(name: string, content: string | Uint8Array): string {
  const path = join(freshProfile(), name);
  writeFileSync(path, content);
  return path;
}

/** A SillyTavern chat of `count` messages with `character`, the last reply in three versions (the second chosen). */
function stChat(character: string, count: number): string {
  const lines = [JSON.stringify({ user_name: 'Ada', character_name: character, create_date: '2024-2-1@10h00m00s', chat_metadata: {} })];
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 1;
    const message: Record<string, unknown> = { name: user ? 'Ada' : character, is_user: user, is_system: false, send_date: 'February 1, 2024 10:05am', mes: `Message ${i + 1}.`, extra: {} };
    if (i === count - 1) Object.assign(message, { mes: 'Second try.', swipes: ['First try.', 'Second try.', 'Third try.'], swipe_id: 1 });
    lines.push(JSON.stringify(message));
  }
  return `${lines.join('\n')}\n`;
}

async function setUp(page: Page, botName: string) {
  await page.evaluate(async (name) => {
    const engine = (globalThis as any).roleplayEngine.engine;
    await engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
    await engine.saveBot({ name, persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'On deck.' }, null);
  }, botName);
}

describe('importing a SillyTavern chat', () => {
  it('shows what the file holds, imports it with a progress bar into a chat that opens on its newest turn, the chosen swipe shown', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await setUp(page, 'Mira');
    await page.goto(`${app.url}/`);
    await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(file('Mira - 2024-2-1@10h00m00s.jsonl', stChat('Mira', 2_001)));
    const preview = page.getByTestId('chat-preview');
    await expect.poll(() => preview.textContent(), { timeout: 15_000 }).toMatch(/2,001 messages from SillyTavern with Mira, Feb 1, 2024\./);
    expect(await preview.textContent()).toMatch(/1,000 of yours · 1,001 replies, 1 with versions to swipe/);
    expect(await preview.getByLabel('Title').inputValue()).toBe('Mira');
    expect(await preview.getByLabel('Bot').locator('option:checked').textContent()).toBe('Mira');
    await preview.getByLabel('Title').fill('The long voyage');

    // Every value the progress bar shows, as it shows it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (globalThis as any).progressSeen = seen;
      new MutationObserver((records) => {
        for (const r of records) if (r.target instanceof HTMLProgressElement) seen.push(r.target.getAttribute('value') ?? '');
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['value'], childList: true });
    });
    await preview.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    const seen = (await page.evaluate(() => (globalThis as any).progressSeen)) as string[];
    expect(seen.map(Number).some((v) => v > 0 && v < 1_000)).toBe(true);

    await expect.poll(() => page.locator('.turn.assistant .story-text').last().textContent(), { timeout: 15_000 }).toBe('Second try.');
    await expect.poll(() => page.locator('.turn.assistant .versions').textContent(), { timeout: 15_000 }).toContain('2/3');
    await expect.poll(() => page.locator('.turn.user .story-text').last().textContent(), { timeout: 15_000 }).toBe('Message 2000.');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('The long voyage');
    const events = (await exportLog(page)).events;
    expect(events.filter((e) => e.kind === 'user_turn')).toHaveLength(1_000);
    expect(events.filter((e) => e.kind === 'chat_created')).toHaveLength(1);
  });

  it('chooses the bot the file names, not the first one listed, and gives it every reply', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await setUp(page, 'Amy');
    await setUp(page, 'Seraphina');
    await page.goto(`${app.url}/`);
    // A file big enough to be read after the bots are listed (how the wrong bot came to be chosen).
    await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(file('Seraphina - 2024-2-1@10h00m00s.jsonl', stChat('Seraphina', 3_001)));
    const preview = page.getByTestId('chat-preview');
    await expect.poll(() => preview.textContent(), { timeout: 15_000 }).toMatch(/with Seraphina/);
    expect(await preview.getByLabel('Bot').locator('option:checked').textContent()).toBe('Seraphina');
    await preview.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    await expect.poll(() => page.locator('.turn.assistant .speaker strong').last().textContent(), { timeout: 15_000 }).toBe('Seraphina');
    expect(new Set(await page.locator('.turn.assistant .speaker strong').allTextContents())).toEqual(new Set(['Seraphina']));
  });

  it('refuses a file with a bad line by its number, writing nothing; a chat can be imported for a card imported on the way', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await setUp(page, 'Someone else');
    await page.goto(`${app.url}/`);
    await waitForDatabase(page);
    const before = (await exportLog(page)).events.length;
    const broken = stChat('Vale', 6).split('\n');
    broken[4] = '{"name": "Vale", "mes": "cut off';
    await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(file('broken.jsonl', broken.join('\n')));
    await expect.poll(() => page.getByRole('dialog').getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/Line 5 is not JSON/);
    expect(await page.getByRole('button', { name: 'Import', exact: true }).count()).toBe(0);
    await page.getByRole('dialog').press('Escape');
    expect((await exportLog(page)).events.length).toBe(before);

    // A file past what an import takes is refused by its size, before it is read (a 1.1 GB one
    // used to fail as if its first line were wrong): the File says 1.1 GB, its bytes are few.
    await page.evaluate(() => {
      const size = Object.getOwnPropertyDescriptor(Blob.prototype, 'size')!.get!;
      Object.defineProperty(Blob.prototype, 'size', {
        configurable: true,
        get(this: Blob) {
          return this instanceof File && this.name === 'huge.jsonl' ? 1_100_000_000 : size.call(this);
        },
      });
    });
    await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(file('huge.jsonl', stChat('Vale', 2)));
    await expect.poll(() => page.getByRole('dialog').getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/This chat file is 1\.1 GB; a chat file can be at most 200 MB/);
    await page.getByRole('dialog').press('Escape');
    expect((await exportLog(page)).events.length).toBe(before);

    await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(file('vale.jsonl', stChat('Vale', 4)));
    const preview = page.getByTestId('chat-preview');
    await expect.poll(() => preview.getByLabel('Bot').locator('option:checked').textContent(), { timeout: 15_000 }).toBe('Someone else');
    const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Vale', description: 'A harbour pilot.', first_mes: 'Hello.' } };
    await preview
      .locator('label:has-text("Import their card") input[type=file]')
      .setInputFiles(file('vale.png', withTextChunks(new Uint8Array(PIXEL), [{ keyword: 'chara', text: Buffer.from(JSON.stringify(card)).toString('base64') }])));
    await page.getByTestId('card-preview').getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => preview.getByLabel('Bot').locator('option:checked').textContent(), { timeout: 15_000 }).toBe('Vale');
    await preview.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    await expect.poll(() => page.locator('.turn.assistant .speaker').last().textContent(), { timeout: 15_000 }).toContain('Vale');
  });
});
