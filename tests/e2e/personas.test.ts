import { describe, expect, it } from 'vitest';
import { browsers, lastReply, openStoryChat, say, servedApp } from './harness.ts';

const app = servedApp();
const launch = browsers();

describe('personas', () => {
  it('a second "you" made in Settings is chosen for one chat from its Story state: new lines are hers, old ones keep theirs, in every tab', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url, { drawerOpen: true });
    await say(page, '"Hello."', 'demo model');

    await page.goto(`${app.url}/settings`);
    const personas = page.getByTestId('personas');
    await personas.getByRole('button', { name: 'Add a persona' }).click();
    const form = personas.getByRole('form', { name: 'New persona' });
    await form.getByLabel('Name').fill('Kit');
    await form.getByLabel('Pronouns').fill('they/them');
    await form.getByLabel('Persona').fill('A smuggler with a soft heart.');
    await form.getByRole('button', { name: 'Save persona' }).click();
    await expect.poll(() => personas.getByRole('list', { name: 'Personas' }).locator('strong').allTextContents(), { timeout: 15_000 }).toEqual(['Ada', 'Kit']);

    await page.goto(`${app.url}/chats/${chatId}`);
    const other = await context.newPage();
    await other.goto(`${app.url}/chats/${chatId}`);
    const playAs = page.getByTestId('story-drawer').getByRole('combobox', { name: 'You play as' });
    await expect.poll(() => playAs.locator('option:checked').textContent(), { timeout: 15_000 }).toBe('Ada');
    await playAs.selectOption({ label: 'Kit' });
    await expect.poll(() => other.getByTestId('story-drawer').getByRole('combobox', { name: 'You play as' }).locator('option:checked').textContent(), { timeout: 15_000 }).toBe('Kit');
    await say(page, '"Different now."', 'demo model');
    await expect.poll(() => page.locator('.turn.user .speaker strong').allTextContents(), { timeout: 15_000 }).toEqual(['Ada', 'Kit']);
    await expect.poll(() => other.locator('.turn.user .speaker strong').allTextContents(), { timeout: 15_000 }).toEqual(['Ada', 'Kit']);
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    const told = await page.evaluate(async (chatId) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      const turn = (await engine.transcript(chatId)).turns.at(-1);
      return (await engine.replyPrompt(chatId, turn.turnId)).parts.find((p: { label: string }) => p.label === 'you').text;
    }, chatId);
    expect(told).toBe('Kit (they/them): A smuggler with a soft heart.');

    // Made the default, Kit is who Settings' "Who you are" shows.
    await page.goto(`${app.url}/settings`);
    await page.getByTestId('personas').getByRole('button', { name: 'Make Kit the default' }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Who you are' }).getByLabel('Name').inputValue(), { timeout: 15_000 }).toBe('Kit');
  });
});
