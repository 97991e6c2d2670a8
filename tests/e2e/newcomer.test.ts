import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { browsers, offeredForTheLatest, openTab, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe('the first screens a newcomer meets', () => {
  it('Settings scrolls inside its column: the page never grows past the window, and reaching "Restore from backup…" keeps the shell in place', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/settings`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Export backup' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(800);
    await page.locator('.backup-section input[type=file]').focus();
    await page.mouse.wheel(0, 2_000);
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => [window.scrollY, document.querySelector('.rail')!.getBoundingClientRect().top])).toEqual([0, 0]);
  });

  it('a name too long is stopped by the field and, if it gets through, refused in plain words; a long unbroken name wraps in the drawer', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/bots/new`);
    const name = page.getByLabel('Name');
    expect(await name.getAttribute('maxlength')).toBe('80');
    expect(await page.getByLabel('Persona').getAttribute('maxlength')).toBe('20000');
    const refused = await page.evaluate(async () => {
      const engine = (globalThis as any).roleplayEngine.engine;
      return engine
        .saveBot({ name: 'M'.repeat(5_000), persona: '', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null)
        .then(() => 'saved', (e: Error) => e.message);
    });
    expect(refused).toMatch(/keep it to 80 characters or fewer/);
    expect(refused).not.toMatch(/Too big|<=/);

    const kickoff = defaultKickoff({ name: 'M'.repeat(80), initialRelationship: '' }, new Date(2026, 0, 1, 20));
    const chatId = await page.evaluate(async (kickoff) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      await engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
      const bot = await engine.saveBot({ name: 'M'.repeat(80), persona: 'Long named.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'Here.' }, null);
      localStorage.setItem('roleplay-engine/drawer', 'open');
      return engine.startChat(bot, kickoff) as Promise<string>;
    }, kickoff);
    await page.goto(`${app.url}/chats/${chatId}`);
    const drawer = page.getByTestId('story-drawer');
    await expect.poll(() => drawer.textContent(), { timeout: 15_000 }).toContain('M'.repeat(80));
    expect(await drawer.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    // Nothing on the chat screen reaches past the window (the drawer's toggle was pushed off it).
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll('.chat *')].filter((el) => el.getBoundingClientRect().right > innerWidth + 1).map((el) => `${el.tagName}.${el.className}`),
    );
    expect(outside).toEqual([]);
  });

  it("a new chat's opening is the author's: no Regenerate or Continue on it, and an empty Send says it lets them go on", async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('.turn.assistant').first().waitFor();
    for (const name of ['Regenerate', 'Continue']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    const offered = await offeredForTheLatest(page);
    expect(offered).toContain('Impersonate');
    expect(offered.filter((name) => name === 'Regenerate' || name === 'Continue')).toEqual([]);
    const box = page.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => page.locator('.composer button[type=submit]').textContent(), { timeout: 15_000 }).toBe('Let them go on');
    await box.fill('"Hello."');
    await expect.poll(() => page.locator('.composer button[type=submit]').textContent(), { timeout: 15_000 }).toBe('Send');
    await box.fill('   ');
    await expect.poll(() => page.locator('.composer button[type=submit]').textContent(), { timeout: 15_000 }).toBe('Let them go on');
    // Letting them go on is a reply of the narrator's, which can then be regenerated.
    await page.getByRole('button', { name: 'Let them go on' }).click();
    await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => page.getByRole('button', { name: 'Regenerate', exact: true }).count(), { timeout: 15_000 }).toBe(1);
  });

  it("the chat list's previews stay inside their column with an ellipsis, and show no *asterisks*", async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    await page.setViewportSize({ width: 1280, height: 800 });
    const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 1, 20));
    const opening = `*Mira leans over the rail* and watches the harbour lights go out one by one, ${'while the storm gathers over the water '.repeat(8)}**and then she laughs.**`;
    await page.evaluate(
      async ({ kickoff, opening }) => {
        const engine = (globalThis as any).roleplayEngine.engine;
        await engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
        const bot = await engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: opening }, null);
        await engine.startChat(bot, kickoff);
      },
      { kickoff, opening },
    );
    await page.goto(`${app.url}/chats`);
    const snippet = page.locator('.chat-card .snippet').first();
    await expect.poll(() => snippet.textContent(), { timeout: 15_000 }).toMatch(/^Mira leans over the rail and watches/);
    expect(await snippet.textContent()).not.toContain('*');
    const fit = await page.evaluate(() => {
      const list = document.querySelector('ul.cards')!.getBoundingClientRect();
      const card = document.querySelector('.chat-card')!.getBoundingClientRect();
      const line = document.querySelector('.chat-card .snippet') as HTMLElement;
      return { inside: card.right <= list.right + 1, ellipsis: line.scrollWidth > line.clientWidth, page: document.documentElement.scrollWidth <= innerWidth };
    });
    expect(fit).toEqual({ inside: true, ellipsis: true, page: true });
  });

  it('a phone opening a chat with the drawer remembered open sees the story and the composer; the drawer is a tap away', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const chatId = await storyReady(page);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).isVisible(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => page.locator('.turn').first().isVisible(), { timeout: 15_000 }).toBe(true);
    await page.getByRole('button', { name: 'Story state' }).click();
    await expect.poll(() => page.getByTestId('story-drawer').isVisible(), { timeout: 15_000 }).toBe(true);
    // What a wide screen remembered is left as it was.
    expect(await page.evaluate(() => localStorage.getItem('roleplay-engine/drawer'))).toBe('open');
  });

  it("on a phone the story comes first: notices fold into one line, the header is one line, the composer one row that grows", async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const chatId = await storyReady(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('[data-banner="demo"]').waitFor();
    // Two notices at least: the demo model, and storage this headless browser did not promise to keep.
    await page.locator('[data-banner="not-persisted"]').waitFor({ state: 'attached' });
    const shown = () =>
      page.evaluate(() => ({
        visible: [...document.querySelectorAll('.banner')].filter((b) => (b as HTMLElement).offsetParent !== null).length,
        height: document.querySelector('.notices')!.getBoundingClientRect().height,
      }));
    const folded = await shown();
    expect(folded.visible).toBe(1);
    expect(folded.height).toBeLessThan(48);
    await page.getByRole('button', { name: 'More notices' }).click();
    expect((await shown()).visible).toBe(2);
    await page.getByRole('button', { name: 'Fewer notices' }).click();
    expect((await shown()).visible).toBe(1);

    // A long reply on screen: the story has at least 65 % of the window.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('"Tell me everything."');
    await box.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Regenerate' }).isVisible(), { timeout: 20_000 }).toBe(true);
    const story = await page.getByRole('log', { name: 'Story' }).evaluate((el) => el.getBoundingClientRect().height / innerHeight);
    expect(story).toBeGreaterThanOrEqual(0.65);
    // The header is one line; the composer one row, its other ways to reply behind one button.
    const headerHeight = await page.locator('.chat-header').evaluate((el) => el.getBoundingClientRect().height);
    expect(headerHeight).toBeLessThan(56);
    const oneRow = await box.evaluate((el) => el.getBoundingClientRect().height);
    expect(oneRow).toBeLessThan(56);
    expect(await page.locator('.composer').getByRole('button').count()).toBe(2);
    // Writing more grows it, up to a third of the screen.
    await box.fill(Array.from({ length: 30 }, (_, i) => `Line ${i + 1}.`).join('\n'));
    await expect.poll(() => box.evaluate((el) => el.getBoundingClientRect().height), { timeout: 15_000 }).toBeGreaterThan(oneRow * 2);
    expect(await box.evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(844 / 3 + 4);
    await box.fill('');
    await expect.poll(() => box.evaluate((el) => el.getBoundingClientRect().height), { timeout: 15_000 }).toBe(oneRow);
    // Nothing is wider than the phone.
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll('.chat *')].filter((el) => el.getBoundingClientRect().right > innerWidth + 1).map((el) => el.tagName),
    );
    expect(outside).toEqual([]);
  });

  it('the kickoff form asks the essentials first; the rest waits behind "More details", which opens itself on a refused field', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const botId = await page.evaluate(async () => {
      const engine = (globalThis as any).roleplayEngine.engine;
      await engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
      return engine.saveBot({ name: 'Mira', pronouns: 'she/her', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'The storm breaks.' }, null);
    });
    await page.goto(`${app.url}/bots/${botId}/start`);
    for (const label of ['Title', 'Where it begins', 'When (in the story)', 'What you are doing', 'What Mira is doing']) {
      await expect.poll(() => page.getByLabel(label, { exact: true }).isVisible(), { message: label, timeout: 15_000 }).toBe(true);
    }
    const kind = page.getByLabel('Kind of place');
    expect(await kind.isVisible()).toBe(false);
    await page.getByText('More details').click();
    await kind.fill('');
    await page.getByText('More details').click();
    expect(await kind.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Start the story' }).click();
    await expect.poll(() => kind.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await kind.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.more-details').textContent()).toContain('say what kind of place it is');
    await kind.fill('ship');
    await page.getByRole('button', { name: 'Start the story' }).click();
    await page.waitForURL(/\/chats\/[^/]+$/);
  });

  it('the demo notice, once put away, stays away in this browser; warnings about losing data come back next session', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const demo = page.locator('[data-banner="demo"]');
    await demo.waitFor();
    await demo.getByRole('button').click();
    await expect.poll(() => demo.count(), { timeout: 15_000 }).toBe(0);
    const persisted = await page.evaluate(async () => navigator.storage.persisted());
    if (!persisted) await page.locator('[data-banner="not-persisted"]').getByRole('button').click();

    const next = await openTab(context, `${app.url}/chats`); // a new tab is a new session
    await expect.poll(() => next.locator('[data-banner="not-persisted"]').count(), { timeout: 15_000 }).toBe(persisted ? 0 : 1);
    expect(await next.locator('[data-banner="demo"]').count()).toBe(0);
  });
});

