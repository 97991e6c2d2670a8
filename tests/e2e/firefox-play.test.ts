import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { clickText, databaseReady, firefoxes, waitUntil } from './firefox-harness.ts';
import { freshProfile, servedApp } from './harness.ts';
import { bmpPicture } from './pictures.ts';

/**
 * What issue 32 built, played in Firefox (Debian's firefox-esr over WebDriver BiDi): groups that
 * talk, personas, "Export everything", chat backgrounds and remote images, under the app's CSP.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** Another site with one picture; the relay may fetch from it (it stands in for a public site). */
const asked: string[] = [];
const elsewhere = createServer((req, res) => {
  asked.push(req.url ?? '');
  res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
});
let sitePort = -1;
beforeAll(async () => {
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  sitePort = (elsewhere.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => {
    elsewhere.close(resolve);
    elsewhere.closeAllConnections();
  });
});
const app = servedApp({}, { imageProxy: { allowAddress: (_address, port) => port === sitePort } });
const { openFirefox } = firefoxes();

/** You (Ada), Mira and Theo, and a chat with Mira; answers the chat id. */
async function story(page: Page): Promise<string> {
  await page.goto(`${app.url}/`);
  await databaseReady(page);
  const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: 'Old friends.' }, new Date(2026, 0, 1, 20));
  return page.evaluate(async (kickoff) => {
    const engine = (globalThis as any).roleplayEngine.engine;
    await engine.saveYou({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.' });
    const bot = (name: string, persona: string) => engine.saveBot({ name, persona, voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'Rain.' }, null);
    const mira = await bot('Mira', 'A wry captain.');
    await bot('Theo', 'A lighthouse keeper.');
    return engine.startChat(mira, kickoff) as Promise<string>;
  }, kickoff);
}

const replies = (page: Page) => page.evaluate(() => [...document.querySelectorAll('.turn.assistant')].map((t) => `${t.getAttribute('data-status')}:${t.querySelector('.speaker strong')?.textContent}`));
const repliesDone = (page: Page, count: number) =>
  waitUntil(page, (count) => document.querySelectorAll('.turn.assistant[data-status="done"]').length === count && !document.querySelector('.composer .stop'), `${count} replies done`, 30_000, count);

async function send(page: Page, line: string): Promise<void> {
  await page.waitForSelector('textarea[aria-label="Message"]');
  await page.evaluate(() => document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')!.focus());
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

describe('Firefox plays', () => {
  it('a group: a guest invited answers when named, "Let Mira speak" gives the host the turn, a muted guest stays silent; a second persona takes over the player’s lines', async () => {
    const { page, violations } = await openFirefox();
    const chatId = await story(page);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${app.url}/chats/${chatId}`);
    await databaseReady(page);
    await waitUntil(page, () => Boolean(document.querySelector('select[aria-label="Bot to invite"] option')), 'someone to invite');
    await page.select('select[aria-label="Bot to invite"]', (await page.evaluate(() => document.querySelector<HTMLOptionElement>('select[aria-label="Bot to invite"] option')!.value)));
    await clickText(page, '[data-testid="story-drawer"] button', 'Invite');
    await waitUntil(page, () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Theo leaves'), 'Theo present');

    await send(page, '"Theo, sit with us."');
    await repliesDone(page, 2);
    expect((await replies(page)).at(-1)).toBe('done:Theo');
    await clickText(page, 'button', 'More ways to reply');
    await clickText(page, '[role=menu] [role=menuitem]', 'Let Mira speak');
    await repliesDone(page, 3);
    expect((await replies(page)).at(-1)).toBe('done:Mira');
    await clickText(page, '[data-testid="story-drawer"] button', 'Mute Theo');
    await waitUntil(page, () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Unmute Theo'), 'Theo muted');
    await send(page, '"Theo? Anything?"');
    await repliesDone(page, 4);
    expect((await replies(page)).at(-1)).toBe('done:Mira');

    // A second "you", chosen for this chat in its Story state: the next line is hers.
    await page.evaluate(() => (globalThis as any).roleplayEngine.engine.savePersona({ name: 'Kit', pronouns: 'they/them', persona: 'A smuggler.' }, null));
    await waitUntil(page, () => Boolean([...document.querySelectorAll('label')].find((l) => l.textContent?.includes('You play as'))?.querySelector('option:nth-child(2)')), 'the persona choice');
    const kit = await page.evaluate(() => [...document.querySelectorAll<HTMLOptionElement>('label select option')].find((o) => o.textContent === 'Kit')!.value);
    await page.evaluate((kit) => {
      const select = [...document.querySelectorAll('label')].find((l) => l.textContent?.includes('You play as'))!.querySelector('select')!;
      select.value = kit;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }, kit);
    await send(page, '"Different now."');
    await repliesDone(page, 5);
    expect(await page.evaluate(() => [...document.querySelectorAll('.turn.user .speaker strong')].map((s) => s.textContent))).toEqual(['Ada', 'Ada', 'Kit']);
    expect(violations).toEqual([]);
  });

  it('"Export everything" zips every bot and chat; a bot’s background shows behind its chat, dimmed; a remote picture shows once allowed', async () => {
    const { page, violations } = await openFirefox();
    const chatId = await story(page);
    await page.goto(`${app.url}/settings`);
    await databaseReady(page);
    // The download's bytes, taken where the app makes its link (the CSP refuses fetching a blob: address).
    await page.evaluate(() => {
      const blobs = new Map<string, Blob>();
      const make = URL.createObjectURL;
      URL.createObjectURL = (blob: Blob) => {
        const url = make(blob);
        blobs.set(url, blob);
        return url;
      };
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        const blob = blobs.get(this.href);
        if (this.download && blob) void blob.arrayBuffer().then((b) => ((globalThis as any).downloaded = { name: this.download, bytes: [...new Uint8Array(b)] }));
        else click.call(this);
      };
    });
    await clickText(page, '[data-testid="export-everything"] button', 'Export everything');
    await waitUntil(page, () => Boolean((globalThis as any).downloaded), 'the zip');
    const { name, bytes } = await page.evaluate(() => (globalThis as any).downloaded as { name: string; bytes: number[] });
    expect(name).toMatch(/^roleplay-engine-export-\d{4}-\d\d-\d\d\.zip$/);
    const files = unzipSync(new Uint8Array(bytes));
    expect(Object.keys(files).sort()).toEqual(['bots/Mira.png', 'bots/Theo.png', 'chats/Mira - A story with Mira.jsonl']);
    expect(JSON.parse(strFromU8(files['chats/Mira - A story with Mira.jsonl']!).split('\n')[0]!)).toMatchObject({ character_name: 'Mira', user_name: 'Ada' });

    // Mira's background, chosen on her page: decoded, fitted and stored by Firefox.
    const mira = await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.listBots()).find((b: { name: string }) => b.name === 'Mira').id as string);
    await page.goto(`${app.url}/bots/${mira}/edit`);
    await databaseReady(page);
    const path = join(freshProfile(), 'dusk.bmp');
    writeFileSync(path, bmpPicture(2_400, 1_000));
    const input = await page.waitForSelector('.background-field input[type=file]');
    await input!.uploadFile(path);
    await waitUntil(page, () => Boolean(document.querySelector('img.background-preview')), 'the background preview');
    await clickText(page, 'button', 'Save bot');
    await waitUntil(page, () => location.pathname === '/bots', 'the bots page');
    await page.goto(`${app.url}/chats/${chatId}`);
    await databaseReady(page);
    await waitUntil(page, () => (document.querySelector<HTMLImageElement>('[data-testid="chat-background"] img')?.naturalWidth ?? 0) > 0, 'the background');
    expect(await page.evaluate(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="chat-background"] img')!;
      return [img.naturalWidth, img.naturalHeight, getComputedStyle(document.querySelector('[data-testid="chat-background"]')!, '::after').opacity];
    })).toEqual([1920, 800, '0.78']);

    // A remote picture in the player's line: a link, until allowed; then shown through the relay.
    await send(page, `![the harbour](http://127.0.0.1:${sitePort}/harbour.png)`);
    await waitUntil(page, () => [...document.querySelectorAll('.turn.user a')].some((a) => a.textContent?.startsWith('the harbour: image from')), 'the picture as a link');
    expect(asked).toEqual([]);
    await repliesDone(page, 2);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/look', JSON.stringify({ remoteImages: true })));
    await page.reload();
    await databaseReady(page);
    await waitUntil(page, () => (document.querySelector<HTMLImageElement>('.turn.user img[data-remote]')?.naturalWidth ?? 0) === 1, 'the remote picture');
    expect(asked).toEqual(['/harbour.png']);
    expect(violations).toEqual([]);
  });
});
