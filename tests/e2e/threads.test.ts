import { describe, expect, it } from 'vitest';
import { browsers, lastReply, openStoryChat, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

describe('open threads', () => {
  it('the demo model opens one when the player asks something; the player adds one and settles it; the narrator is told the open ones', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url, { drawerOpen: true });
    const drawer = page.getByTestId('story-drawer');
    await expect.poll(() => drawer.getByRole('heading', { name: 'Open threads' }).count(), { timeout: 15_000 }).toBe(1);
    await say(page, '"Will you take me to the lighthouse?"', 'demo model');
    const threads = drawer.locator('[data-testid="thread"][data-status="open"]');
    await expect.poll(() => threads.count(), { timeout: 15_000 }).toBe(1);
    expect(await threads.first().textContent()).toMatch(/^Question · .*What about lighthouse\? It has not been answered yet\./);

    const add = drawer.getByRole('form', { name: 'Add a thread' });
    await add.getByLabel('Kind of thread').selectOption('promise');
    await add.getByLabel('Thread', { exact: true }).fill('She still owes me the map.');
    await add.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => threads.count(), { timeout: 15_000 }).toBe(2);
    expect(await violations(page, 'the drawer with threads')).toEqual([]);

    await drawer.getByRole('button', { name: 'Settled: She still owes me the map.' }).click();
    await expect.poll(() => threads.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => drawer.getByText('Settled (1)').count(), { timeout: 15_000 }).toBe(1);

    await say(page, '"Well?"', 'demo model');
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    const told = await page.evaluate(async (chatId) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      const turn = (await engine.transcript(chatId)).turns.at(-1);
      return (await engine.replyPrompt(chatId, turn.turnId)).parts.find((p: { label: string }) => p.label === 'open threads') as { tier: string; text: string };
    }, chatId);
    expect(told.tier).toBe('should');
    expect(told.text).toContain('What about lighthouse?');
    expect(told.text).not.toContain('owes me the map');
  });
});
