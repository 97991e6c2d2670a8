import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { withTextChunks } from '../../src/engine/cards/png.ts';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HOSTILE_DIR, type CorpusEntry } from '../fixtures/hostile/make-corpus.ts';
import { browsers, exportLog, freshProfile, openTab, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const CARD = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira',
    description: 'A wry captain of the Gull.',
    personality: 'wry',
    scenario: 'A storm.',
    first_mes: 'Welcome aboard, {{user}}.',
    alternate_greetings: ['Ahoy, {{user}}.', 'You again?'],
    mes_example: '',
    tags: ['sea'],
    character_book: { entries: [{ keys: ['kraken'], content: 'A beast.' }, { keys: ['port'], content: 'The port.' }] },
  },
};

function cardFile(name: string, bytes: Uint8Array | Buffer): string {
  const path = join(freshProfile(), name);
  writeFileSync(path, bytes);
  return path;
}
const pngCard = () => cardFile('mira.png', withTextChunks(new Uint8Array(PIXEL), [{ keyword: 'chara', text: Buffer.from(JSON.stringify(CARD)).toString('base64') }]));

describe('character cards', () => {
  it('imports a PNG card after showing what it holds; the bot opens its chats on its greetings; a second import asks update or keep both', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await page.evaluate(() => (globalThis as any).roleplayEngine.engine.saveYou({ name: 'Ada', pronouns: '', persona: '' }));
    await page.goto(`${app.url}/bots`);
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(pngCard());
    const preview = page.getByTestId('card-preview');
    await expect.poll(() => preview.textContent(), { timeout: 15_000 }).toMatch(/Card V2 from a PNG file · 3 greetings · 2 lorebook entries/);
    expect(await preview.getByLabel('Name').inputValue()).toBe('Mira');
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('imported-toast').textContent(), { timeout: 15_000 }).toContain('Mira imported.');
    await expect.poll(() => page.getByRole('list', { name: 'Bots' }).locator('img.avatar').count(), { timeout: 15_000 }).toBe(1);
    const kept = (await exportLog(page)).events.filter((e) => e.kind === 'card_kept');
    expect(kept).toHaveLength(1);

    await page.getByTestId('imported-toast').getByRole('link', { name: 'Start a chat' }).click();
    await page.getByRole('button', { name: 'Start the story' }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    await expect.poll(() => page.locator('.turn.assistant .story-text').last().textContent(), { timeout: 15_000 }).toBe('Welcome aboard, Ada.');
    await expect.poll(() => page.locator('.turn.assistant .versions').textContent(), { timeout: 15_000 }).toContain('1/3');
    await page.getByRole('button', { name: 'Next version' }).click();
    await expect.poll(() => page.locator('.turn.assistant .story-text').last().textContent(), { timeout: 15_000 }).toBe('Ahoy, Ada.');

    await page.goto(`${app.url}/bots`);
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(pngCard());
    await expect.poll(() => page.getByRole('button', { name: 'Update Mira' }).isVisible(), { timeout: 15_000 }).toBe(true);
    await page.getByRole('button', { name: 'Keep both' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Bots' }).locator('strong').allTextContents(), { timeout: 15_000 }).toEqual(['Mira', 'Mira']);
  });

  it('a file that is not a card is refused in its preview, and nothing is written; a card dropped on the page opens its preview', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    const before = (await exportLog(page)).events.length;
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(cardFile('plain.png', PIXEL));
    await expect.poll(() => page.getByRole('dialog').getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/holds no character card/);
    await page.getByRole('dialog').press('Escape');
    expect((await exportLog(page)).events.length).toBe(before);

    await page.evaluate((json) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([json], 'mira.json', { type: 'application/json' }));
      const section = document.querySelector('section[aria-labelledby="bots-title"]')!;
      section.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      section.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, JSON.stringify(CARD));
    await expect.poll(() => page.getByTestId('card-preview').textContent(), { timeout: 15_000 }).toMatch(/Card V2 from a JSON file/);
  });
});

describe('the hostile corpus, imported as cards', () => {
  it('every file is previewed or refused with its reason, each read by a card reader of its own that then ends, and nothing is written', async () => {
    const manifest = JSON.parse(readFileSync(join(HOSTILE_DIR, 'manifest.json'), 'utf8')) as Record<string, CorpusEntry>;
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    const readers: { ended: boolean }[] = [];
    page.on('worker', (worker) => {
      if (!worker.url().includes('card-reader')) return;
      const reader = { ended: false };
      readers.push(reader);
      worker.on('close', () => (reader.ended = true));
    });
    const before = (await exportLog(page)).events.length;
    const outcomes: string[] = [];
    for (const [name, entry] of Object.entries(manifest)) {
      await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(join(HOSTILE_DIR, name));
      const dialog = page.getByRole('dialog');
      const answer = dialog.getByTestId('card-preview').or(dialog.getByRole('alert'));
      await answer.first().waitFor({ timeout: 15_000 });
      const previewed = (await dialog.getByTestId('card-preview').count()) > 0;
      const said = previewed ? '' : ((await dialog.getByRole('alert').textContent()) ?? '');
      if (previewed !== (entry.accepts.includes('card') || Boolean(entry.needsPlayer))) outcomes.push(`${name}: ${previewed ? 'previewed' : `refused (${said})`}, expected otherwise`);
      if (!previewed && (said.trim().length < 10 || /undefined|\[object|Maximum call stack|Cannot read/.test(said))) outcomes.push(`${name}: unclear refusal "${said}"`);
      await dialog.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count(), { timeout: 15_000 }).toBe(0);
    }
    expect(outcomes).toEqual([]);
    expect((await exportLog(page)).events.length).toBe(before);
    expect(readers.length).toBe(Object.keys(manifest).length);
    await expect.poll(() => readers.filter((r) => !r.ended).length, { timeout: 15_000 }).toBe(0);
  });
});

describe('character cards out', () => {
  it('an imported bot edited in its form keeps its greetings, and exports as a PNG card with the edit and everything else it came with', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(pngCard());
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('link', { name: 'Edit Mira' }).click();
    await page.getByLabel('Persona').fill('A retired captain.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/bots$/);
    const bot = await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.listBots())[0]);
    expect(bot).toMatchObject({ persona: 'A retired captain.', greetings: ['Welcome aboard, {{user}}.', 'Ahoy, {{user}}.', 'You again?'] });

    await page.getByRole('link', { name: 'Edit Mira' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export card (PNG)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('Mira.png');
    const path = join(freshProfile(), 'out.png');
    await file.saveAs(path);
    const card = await readCard(new Uint8Array(readFileSync(path)));
    expect(card.card.spec).toBe('chara_card_v3');
    expect(card.card.data).toMatchObject({ description: 'A retired captain.', firstMessage: 'Welcome aboard, {{user}}.', tags: ['sea'] });
    expect(card.card.data.book?.entries).toHaveLength(2);
    expect(card.picture!.length).toBeGreaterThan(100);
  });
});

describe("a card's creator notes", () => {
  it('show on the bot page as the author wrote them, scripts and handlers removed', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots`);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const hostile = {
      ...CARD,
      data: {
        ...CARD.data,
        creator: 'Quill',
        creator_notes: '<b>Read me</b><img src="x" onerror="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)">link</a><iframe src="about:blank"></iframe>',
      },
    };
    const path = join(freshProfile(), 'hostile.json');
    writeFileSync(path, JSON.stringify(hostile));
    await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(path);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('link', { name: 'Edit Mira' }).click();
    const notes = page.getByTestId('creator-notes');
    await expect.poll(() => notes.locator('b').textContent(), { timeout: 15_000 }).toBe('Read me');
    const html = await notes.innerHTML();
    expect(html).not.toMatch(/onerror|<script|javascript:|<iframe/i);
    expect(await page.getByRole('region', { name: 'From a character card' }).textContent()).toMatch(/Card V2 by Quill/);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
  });
});

describe("a card's creator notes, hostile", () => {
  it('load nothing from elsewhere, send no referrer, and cannot dress up as the app', async () => {
    // Another site, counting what the notes make the browser ask it for.
    const asked: { url: string; headers: IncomingHttpHeaders }[] = [];
    const elsewhere = createServer((req, res) => {
      asked.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(PIXEL);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const there = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    try {
      ({ context } = await launchBrowser());
      const page = await openTab(context, `${app.url}/bots`);
      const notes = [
        '# About\n\n**Read** this ~~first~~.\n\n',
        '<style>body { display: none }</style><p style="color: red">Plain words stay.</p>',
        `<img src="${there}/pixel.png" alt="Portrait">`,
        `<video poster="${there}/poster.png" src="${there}/clip.mp4"></video>`,
        `<audio src="${there}/theme.mp3" autoplay></audio>`,
        `<svg width="10" height="10"><image href="${there}/svg.png" width="10" height="10"/></svg>`,
        `<img srcset="${there}/set.png 1x">`,
        `<a class="button primary-action" id="send" style="position:fixed;inset:0" role="button" aria-label="Send" data-testid="composer" href="${there}/update">Update required</a>`,
        `<img src="data:image/png;base64,${PIXEL.toString('base64')}" alt="inline">`,
      ].join('');
      const path = join(freshProfile(), 'remote.json');
      writeFileSync(path, JSON.stringify({ ...CARD, data: { ...CARD.data, creator_notes: notes } }));
      await page.locator('label:has-text("Import card") input[type=file]').setInputFiles(path);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('link', { name: 'Edit Mira' }).click();
      const shown = page.getByTestId('creator-notes');
      await expect.poll(() => shown.textContent(), { timeout: 15_000 }).toContain('Plain words stay.');
      expect(await page.getByText(/5 remote pictures or sounds were not loaded/).count()).toBe(1);
      // Notes written in markdown read as formatted text.
      expect(await shown.locator('h1').textContent()).toBe('About');
      expect(await shown.locator('strong').textContent()).toBe('Read');
      expect(await shown.locator('del').textContent()).toBe('first');

      // Nothing from the notes borrows the app's looks or names, or pretends to be one of its controls.
      const html = await shown.innerHTML();
      expect(html).not.toMatch(/\b(class|id|style|role|aria-label|data-testid|srcset)=/);
      const link = shown.getByRole('link', { name: 'Update required' });
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
      // The remote picture is a link the player may follow; the inline one shows.
      await expect.poll(() => shown.getByRole('link', { name: /Portrait: image from 127\.0\.0\.1/ }).count(), { timeout: 15_000 }).toBe(1);
      expect(await shown.locator('img[alt="inline"]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

      // Given time, the other site heard nothing.
      await page.waitForTimeout(1_500);
      expect(asked).toEqual([]);
    } finally {
      await new Promise((resolve) => {
        elsewhere.close(resolve);
        elsewhere.closeAllConnections();
      });
    }
  });
});

describe('greetings', () => {
  it('written in the bot form, they open a new chat as its versions', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await page.evaluate(() => (globalThis as any).roleplayEngine.engine.saveYou({ name: 'Ada', pronouns: '', persona: '' }));
    await page.goto(`${app.url}/bots/new`);
    await page.getByLabel('Name').fill('Tam');
    await page.getByLabel('Persona').fill('A ferryman.');
    await page.getByRole('button', { name: 'Add greeting' }).click();
    await page.getByLabel('Greeting 1', { exact: true }).fill('The ferry bumps the dock. "Where to, {{user}}?"');
    await page.getByRole('button', { name: 'Add greeting' }).click();
    await page.getByLabel('Greeting 2', { exact: true }).fill('Fog.');
    await page.getByRole('button', { name: 'Add greeting' }).click();
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('button', { name: 'Start the story' }).click();
    await page.waitForURL(/\/chats\/[^/?]+$/);
    await expect.poll(() => page.locator('.turn.assistant .story-text').last().textContent(), { timeout: 15_000 }).toBe('The ferry bumps the dock. "Where to, Ada?"');
    await expect.poll(() => page.locator('.turn.assistant .versions').textContent(), { timeout: 15_000 }).toContain('1/2');
  });
});
