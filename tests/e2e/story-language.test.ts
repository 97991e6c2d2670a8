import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browsers, openTab, servedApp, storyReady } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe('the story language', () => {
  it('follows what the player writes in, can be chosen in the drawer, and is told to the narrator', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);
    const language = page.getByRole('combobox', { name: 'Story language' });
    const message = page.getByRole('textbox', { name: 'Message' });
    const replied = (n: number) => expect.poll(() => page.evaluate(() => [...document.querySelectorAll('.turn.assistant')].filter((t) => t.getAttribute('data-status') === 'done').length), { timeout: 20_000 }).toBe(n);
    const toldNarrator = () =>
      page.evaluate(async (chatId) => {
        const engine = (globalThis as any).roleplayEngine.engine;
        const turn = (await engine.transcript(chatId)).turns.at(-1);
        const report = await engine.replyPrompt(chatId, turn.turnId);
        return report.parts.find((p: { label: string }) => p.label === 'language')?.text ?? null;
      }, chatId);

    await message.fill('「銀の鍵はどこ？」とエイダは聞いた。');
    await message.press('Enter');
    await replied(2);
    await expect.poll(() => language.locator('option:checked').textContent(), { timeout: 15_000 }).toBe('Follow the story (now Japanese)');
    expect(await toldNarrator()).toBe('The story is played in Japanese: write every word of the story in Japanese.');

    await language.selectOption('es');
    await expect.poll(() => language.inputValue(), { timeout: 15_000 }).toBe('es');
    await message.fill('¿Dónde está la llave?');
    await message.press('Enter');
    await replied(3);
    expect(await toldNarrator()).toBe('The story is played in Spanish: write every word of the story in Spanish.');
    // Chosen for this chat: it stays so after a reload.
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Story language' }).inputValue(), { timeout: 15_000 }).toBe('es');
  });
});
