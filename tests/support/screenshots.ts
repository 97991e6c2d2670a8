/**
 * `npm run screenshots [-- <dir>]`: the app as a player sees it, every page in each theme at a
 * phone's size (390x844) and a laptop's (1280x800), written as PNGs (default `screenshots/`,
 * gitignored) to look at after UI work. Needs a build (`npm run build`). Not a test: it asserts
 * nothing, it shows.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, openTab, role, startApp, storyReady } from '../e2e/harness.ts';

const THEMES = ['dark', 'light', 'paper'] as const;
const SIZES = [
  ['phone', { width: 390, height: 844 }],
  ['wide', { width: 1280, height: 800 }],
] as const;

const out = resolve(process.argv[2] ?? 'screenshots');
mkdirSync(out, { recursive: true });

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) if (await check()) return;
  throw new Error(`screenshots: ${what} never showed`);
}

/** A story worth looking at: a background, a persona, a guest, a lorebook, three exchanges with markdown. */
async function seed(page: Page): Promise<string> {
  const chatId = await storyReady(page);
  await page.evaluate(async (chatId) => {
    const engine = (globalThis as any).roleplayEngine.engine;
    await engine.createLorebook('Harbour lore');
    // A dusk harbour of gradients, drawn here, as the chat's background.
    const canvas = new OffscreenCanvas(1600, 900);
    const g = canvas.getContext('2d')!;
    const sky = g.createLinearGradient(0, 0, 0, 900);
    sky.addColorStop(0, '#2b3a67');
    sky.addColorStop(0.6, '#c8745a');
    sky.addColorStop(1, '#1c2b3a');
    g.fillStyle = sky;
    g.fillRect(0, 0, 1600, 900);
    g.fillStyle = '#0f1a26';
    for (let x = 0; x < 1600; x += 120) g.fillRect(x, 620 - (x % 360) / 3, 80, 300);
    const blob = await canvas.convertToBlob({ type: 'image/webp', quality: 0.8 });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    const hash = await engine.addImage({ mime: 'image/webp', width: 1600, height: 900, data: btoa(binary) });
    await engine.setChatBackground(chatId, hash);
    // The living state: fields of the player's own, an item; the exchanges below add a thread and another item.
    await engine.addField(chatId, { name: 'Hunger', about: 'How hungry: 0 fed, 100 starving', type: 'number', min: 0, max: 100, per: 'character' });
    await engine.addField(chatId, { name: 'Mood', about: 'The mood of the scene', type: 'choice', choices: ['calm', 'tense', 'stormy'], per: 'chat' });
    await engine.addItem(chatId, 'brass compass', 'you', 'in my coat pocket');
  }, chatId);
  await page.goto(`${page.url().replace(/\/[^/]*$/, '')}/chats/${chatId}`);
  for (const line of ['*looks out at the harbour* "Where are we headed, captain?"', 'I check the **charts** and *I pick up the old lantern.*', '"Tell me about the storm."']) {
    const before = await page.locator('.turn.assistant').count();
    await page.getByRole('textbox', { name: 'Message' }).fill(line);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await waitFor(async () => (await page.locator('.turn.assistant').count()) > before && (await page.locator('.composer .stop').count()) === 0, 'a reply');
  }
  // Every reply analysed: the drawer shows the threads, items and fields the story filled in.
  await waitFor(async () => (await page.evaluate(async (chatId) => (await (globalThis as any).roleplayEngine.engine.analysisStatus(chatId)).pending, chatId)) === 0, 'the analysis');
  return chatId;
}

const { url, relay } = await startApp();
const { context } = await launchBrowser();
await context.addInitScript('globalThis.__name = (f) => f');
try {
  const page = await openTab(context, `${url}/`);
  await waitFor(async () => (await role(page)) === 'leader', 'the leading tab');
  const chatId = await seed(page);
  const botId = await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.listBots())[0].id as string);
  const pages: [string, string, (page: Page) => Promise<void>][] = [
    ['chat', `/chats/${chatId}`, async (p) => void (await p.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'closed')))],
    ['chat-menu', `/chats/${chatId}`, async (p) => {
      await p.locator('.turn.assistant').last().getByRole('button', { name: 'Message actions' }).click();
    }],
    ['recap', `/chats/${chatId}`, async (p) => {
      await p.getByRole('button', { name: 'Chat actions' }).click();
      await p.getByRole('menuitem', { name: 'Previously on…' }).click();
    }],
    ['drawer', `/chats/${chatId}`, async (p) => {
      const toggle = p.getByRole('button', { name: 'Story state' });
      if (await toggle.count()) await toggle.click();
    }],
    ['drawer-living', `/chats/${chatId}`, async (p) => {
      const toggle = p.getByRole('button', { name: 'Story state' });
      if (await toggle.count()) await toggle.click();
      await p.locator('#drawer-threads').scrollIntoViewIfNeeded();
      await p.locator('#drawer-threads').evaluate((h) => h.scrollIntoView({ block: 'start' }));
    }],
    ['why', `/chats/${chatId}`, async (p) => {
      const toggle = p.getByRole('button', { name: 'Story state' });
      if (await toggle.count()) await toggle.click();
      await p.getByRole('button', { name: "About Ada's Hunger" }).click();
      await p.getByRole('menuitem', { name: 'Why?' }).click();
    }],
    ['chats', '/chats', async () => {}],
    ['bots', '/bots', async () => {}],
    ['bot', `/bots/${botId}/edit`, async () => {}],
    ['lore', '/lore', async () => {}],
    ['settings', '/settings', async () => {}],
  ];
  for (const theme of THEMES) {
    await page.evaluate((theme) => {
      const key = 'roleplay-engine/look';
      localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key) ?? '{}'), theme }));
    }, theme);
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      for (const [name, path, prepare] of pages) {
        await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'closed'));
        await page.goto(`${url}${path}`);
        await page.locator('main h1, main h2').first().waitFor();
        await page.waitForTimeout(600);
        await prepare(page);
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(out, `${name}-${theme}-${size}.png`) });
        // Settings runs long: its Look section, where the look is chosen, on its own too.
        if (name === 'settings') await page.getByTestId('look-section').screenshot({ path: join(out, `settings-look-${theme}-${size}.png`) });
      }
    }
  }
  console.log(`screenshots: ${THEMES.length * SIZES.length * pages.length} pictures in ${out}`);
} finally {
  await context.close();
  await relay.close();
}
