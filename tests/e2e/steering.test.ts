import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browsers, exportLog, openTab, replyOption, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const NOTE = 'Mira never mentions the storm.';

describe('steering words', () => {
  it("the composer's hint opens the director's note; the note is kept, shown, and told in the next reply's prompt", async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'closed'));
    await page.goto(`${app.url}/chats/${chatId}`);
    const message = page.getByRole('textbox', { name: 'Message' });
    const hint = page.locator('#composer-hint');
    await expect.poll(() => hint.textContent(), { timeout: 15_000 }).toMatch(/\(\(Asides\)\) stay between you and the app/);
    expect(await message.getAttribute('aria-describedby')).toBe('composer-hint');

    await hint.getByRole('button', { name: "director's note" }).click();
    const field = page.getByRole('textbox', { name: "director's note" });
    await expect.poll(() => field.evaluate((el) => el === document.activeElement), { timeout: 15_000 }).toBe(true);
    await field.fill(NOTE);
    await page.getByRole('group', { name: "Editing director's note" }).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('director-note').textContent(), { timeout: 15_000 }).toContain(NOTE);

    await message.fill('"Shall we sail?"');
    await message.press('Enter');
    const replied = () => page.evaluate(() => [...document.querySelectorAll('.turn.assistant')].map((t) => t.getAttribute('data-status')));
    await expect.poll(replied, { timeout: 20_000 }).toEqual(['done', 'done']);
    const told = await page.evaluate(async (chatId) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      const turn = (await engine.transcript(chatId)).turns.at(-1);
      const report = await engine.replyPrompt(chatId, turn.turnId);
      return report.parts.find((p: { label: string }) => p.label === "director's note");
    }, chatId);
    expect(told).toMatchObject({ tier: 'must', kept: true });
    expect(told.text).toContain(NOTE);
  });

  it('Impersonate drafts your next message into the composer and sends nothing; it never replaces words you typed', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);
    const message = page.getByRole('textbox', { name: 'Message' });
    const before = (await exportLog(page)).events.length;
    // Impersonate is behind the composer's one secondary button; each look opens that menu.
    const impersonate = () => replyOption(page, 'Impersonate');

    await (await impersonate()).click();
    await expect.poll(() => message.inputValue(), { timeout: 15_000 }).toMatch(/\*I .+\*/);
    const drafted = await message.inputValue();
    expect(drafted).not.toMatch(/demo model|Mira says|^Ada:/);
    expect(await page.locator('.turn.user').count()).toBe(0);
    expect((await exportLog(page)).events.length).toBe(before);
    await expect.poll(async () => (await impersonate()).isDisabled(), { timeout: 15_000 }).toBe(true);

    await message.fill('');
    await expect.poll(async () => (await impersonate()).isDisabled(), { timeout: 15_000 }).toBe(false);
    await message.fill('"My own words."');
    await expect.poll(async () => (await impersonate()).isDisabled(), { timeout: 15_000 }).toBe(true);
    await message.press('Enter');
    await expect.poll(() => page.locator('.turn.user .story-text').last().textContent(), { timeout: 15_000 }).toContain('My own words.');
  });
});

describe('group scenes', () => {
  it('invites a guest from the drawer, who answers in its own voice when named or given the turn, can be muted, and all answer in turn if asked; the guest leaves and comes back, in every tab', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.evaluate(() =>
      (globalThis as any).roleplayEngine.engine.saveBot(
        { name: 'Theo', pronouns: 'he/him', persona: 'A lighthouse keeper.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'Rain.' },
        null,
      ),
    );
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.goto(`${app.url}/chats/${chatId}`);
    const other = await openTab(context, `${app.url}/chats/${chatId}`);
    const drawer = page.getByTestId('story-drawer');
    await drawer.getByRole('combobox', { name: 'Bot to invite' }).selectOption({ label: 'Theo' });
    await drawer.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => drawer.getByRole('button', { name: 'Theo leaves' }).isVisible(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => other.getByTestId('story-drawer').getByRole('button', { name: 'Theo leaves' }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await drawer.getByRole('heading', { name: 'Invite someone' }).count()).toBe(0); // nobody else to invite

    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('"Theo, sit with us."');
    await message.press('Enter');
    const replied = () => page.evaluate(() => [...document.querySelectorAll('.turn.assistant')].map((t) => t.getAttribute('data-status')));
    await expect.poll(replied, { timeout: 20_000 }).toEqual(['done', 'done']);
    // Named, Theo answers in his own voice: the reply is his, with his face, from his own prompt.
    const promptOf = () =>
      page.evaluate(async (chatId) => {
        const engine = (globalThis as any).roleplayEngine.engine;
        const turn = (await engine.transcript(chatId)).turns.at(-1);
        return (await engine.replyPrompt(chatId, turn.turnId)).parts as { label: string; text: string }[];
      }, chatId);
    const speakerOfLast = () => page.locator('.turn.assistant').last().locator('.speaker strong').textContent();
    await expect.poll(speakerOfLast, { timeout: 15_000 }).toBe('Theo');
    expect(await page.locator('.turn.assistant').last().locator('> .avatar').textContent()).toBe('TH');
    expect((await promptOf()).find((p) => p.label === 'persona')!.text).toContain('Theo (he/him): A lighthouse keeper.');
    expect((await promptOf()).some((p) => p.label === 'host: Mira')).toBe(true);

    // Any bot present can be given the turn, from the composer or the drawer.
    await (await replyOption(page, 'Let Mira speak')).click();
    await expect.poll(replied, { timeout: 20_000 }).toEqual(['done', 'done', 'done']);
    await expect.poll(speakerOfLast, { timeout: 15_000 }).toBe('Mira');
    await drawer.getByRole('button', { name: 'Let Theo speak' }).click();
    await expect.poll(replied, { timeout: 20_000 }).toEqual(['done', 'done', 'done', 'done']);
    await expect.poll(speakerOfLast, { timeout: 15_000 }).toBe('Theo');

    // Muted, Theo stays present but is never chosen: named or not, Mira answers; the other tab sees it.
    await drawer.getByRole('button', { name: 'Mute Theo' }).click();
    await expect.poll(() => other.getByTestId('story-drawer').getByRole('button', { name: 'Unmute Theo' }).isVisible(), { timeout: 15_000 }).toBe(true);
    await message.fill('"Theo? Anything?"');
    await message.press('Enter');
    await expect.poll(replied, { timeout: 20_000 }).toEqual(['done', 'done', 'done', 'done', 'done']);
    await expect.poll(speakerOfLast, { timeout: 15_000 }).toBe('Mira');
    await drawer.getByRole('button', { name: 'Unmute Theo' }).click();

    // Everyone answers, one after another: one line brings both replies.
    await drawer.getByRole('combobox', { name: 'Who answers you' }).selectOption('all');
    await message.fill('"Good night, both."');
    await message.press('Enter');
    await expect.poll(replied, { timeout: 30_000 }).toEqual(['done', 'done', 'done', 'done', 'done', 'done', 'done']);
    expect(await page.locator('.turn.assistant .speaker strong').evaluateAll((names) => names.slice(-2).map((n) => n.textContent))).toEqual(['Mira', 'Theo']);

    await drawer.getByRole('button', { name: 'Theo leaves' }).click();
    await expect.poll(() => drawer.textContent(), { timeout: 15_000 }).toContain('Theo (away)');
    await drawer.getByRole('button', { name: 'Bring Theo back' }).click();
    await expect.poll(() => other.getByTestId('story-drawer').getByRole('button', { name: 'Theo leaves' }).isVisible(), { timeout: 15_000 }).toBe(true);
  });
});
