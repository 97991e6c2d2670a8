import { describe, expect, it } from 'vitest';
import { browsers, message, openStoryChat, servedApp } from './harness.ts';

const app = servedApp();
const launch = browsers();

describe('the composer while a reply is being written', () => {
  it('a line sent before the reply ends is kept, said to wait, and sent when it ends, not dropped or wiped', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await message(page).fill('"Where are we headed?"');
    await message(page).press('Enter');
    // The player types the next line at once and sends it while the reply is still coming.
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).count(), { timeout: 15_000 }).toBe(1);
    await message(page).fill('"And after that?"');
    await message(page).press('Enter');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Sends when this reply ends.' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await message(page).inputValue()).toBe('"And after that?"');
    // The reply ends, the waiting line goes, and the composer is empty again.
    const yours = page.locator('.turn.user');
    await expect.poll(() => yours.allTextContents(), { timeout: 20_000 }).toEqual([expect.stringContaining('Where are we headed?'), expect.stringContaining('And after that?')]);
    await expect.poll(() => page.locator('.turn.assistant').count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => message(page).inputValue(), { timeout: 15_000 }).toBe('');
  });
});
