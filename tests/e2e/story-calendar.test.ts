import { describe, expect, it } from 'vitest';
import { browsers, chatAction, openStoryChat, say, servedApp } from './harness.ts';
import { violations } from './axe.ts';

const app = servedApp();
const launch = browsers();

describe('one story calendar', () => {
  it('memories say how long ago by the story’s clock; Skip ahead moves it (next morning, by days, to a date) and the words follow; the time set back by hand relabels them', async () => {
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url, { drawerOpen: true });
    await say(page, '"I found the lighthouse map."', 'demo model');
    const drawer = page.getByTestId('story-drawer');
    const when = () => drawer.getByTestId('memory-when').first().textContent();
    await expect.poll(when, { timeout: 15_000 }).toMatch(/^just now · 1 January 2026, 20:0\d$/);
    // Every reply's analysis is in (it moves the clock a minute), so only the player moves it now:
    // the kickoff's memory and the reply's.
    await expect.poll(() => drawer.getByTestId('memory').count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => page.getByTestId('updating-memories').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.analysisStatus(location.pathname.split('/').pop())).pending), { timeout: 15_000 }).toBe(0);

    await drawer.getByRole('button', { name: 'Next morning' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('2 January 2026, 07:00');
    await expect.poll(when, { timeout: 15_000 }).toMatch(/^yesterday evening · /);

    await drawer.getByRole('button', { name: 'Skip ahead…' }).click();
    const form = drawer.getByRole('form', { name: 'Skip ahead' });
    expect(await violations(page, 'the Skip ahead form')).toEqual([]);
    await form.getByLabel('How long').fill('3');
    await form.getByLabel('Hours or days').selectOption('days');
    await form.getByRole('button', { name: 'Skip', exact: true }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('5 January 2026, 07:00');
    await expect.poll(when, { timeout: 15_000 }).toMatch(/^four days ago · /);

    // A date before the clock is refused with the way to do it instead; the clock stays.
    await drawer.getByRole('button', { name: 'Skip ahead…' }).click();
    await form.getByLabel('Skip to').fill('2025-12-31T12:00');
    await form.getByRole('button', { name: 'Skip to then' }).click();
    await expect.poll(() => drawer.getByRole('alert').first().textContent(), { timeout: 15_000 }).toMatch(/not after the story’s clock\. To set the clock back, edit the time/);
    expect(await page.getByTestId('fiction-time').textContent()).toBe('5 January 2026, 07:00');
    await form.getByLabel('Skip to').fill('2026-03-01T09:30');
    await form.getByRole('button', { name: 'Skip to then' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('1 March 2026, 09:30');
    await expect.poll(when, { timeout: 15_000 }).toMatch(/^last month · /);

    // Set back by hand: the drawer's time is an edit, marked, and the words follow.
    await drawer.getByRole('button', { name: 'Edit time' }).click();
    await drawer.getByLabel('time', { exact: true }).fill('2026-01-01T22:15');
    await drawer.getByRole('group', { name: 'Editing time' }).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('1 January 2026, 22:15');
    await expect.poll(when, { timeout: 15_000 }).toMatch(/^two hours ago · /);
    await expect.poll(() => drawer.getByTestId('drawer-time').textContent(), { timeout: 15_000 }).toContain('edited by you');
  });
});

describe('"Previously on…"', () => {
  it('shows above the story when a chat is opened after hours away, from what the player saw; Back to the story closes it; Chat actions opens it again; "Only when I ask" keeps it away', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url);
    await say(page, '"I found the lighthouse map."', 'demo model');
    await expect.poll(() => page.evaluate(async (id) => (await (globalThis as any).roleplayEngine.engine.analysisStatus(id)).pending, chatId), { timeout: 15_000 }).toBe(0);
    // Opened again right away: no recap.
    await page.reload();
    await page.locator('.turn').first().waitFor();
    expect(await page.getByTestId('recap').count()).toBe(0);

    // Last seen on this device five hours ago (set from another page: the chat marks itself seen as it is left).
    await page.goto(`${app.url}/chats`);
    await page.evaluate((id) => localStorage.setItem(`roleplay-engine/seen/${id}`, String(Date.now() - 5 * 3_600_000)), chatId);
    await page.goto(`${app.url}/chats/${chatId}`);
    const recap = page.getByTestId('recap');
    await expect.poll(() => recap.getByRole('heading').textContent(), { timeout: 15_000 }).toBe('Previously on A story with Mira');
    expect(await recap.textContent()).toMatch(/Now, 1 January 2026, 20:0\d\. Ada at A quiet room: standing, talking; Mira at A quiet room: standing, talking\./);
    expect(await recap.locator('.story-text').count()).toBeGreaterThan(0);
    expect(await recap.textContent()).toContain('Where you stopped:');
    // Not part of the story: the transcript does not hold it.
    expect(await page.locator('[role="log"] [data-testid="recap"]').count()).toBe(0);
    expect(await violations(page, 'the recap')).toEqual([]);
    await recap.getByRole('button', { name: 'Back to the story' }).click();
    await expect.poll(() => recap.count(), { timeout: 15_000 }).toBe(0);
    await chatAction(page, 'Previously on…');
    await expect.poll(() => recap.count(), { timeout: 15_000 }).toBe(1);

    await page.goto(`${app.url}/settings`);
    await page.getByTestId('look-section').getByRole('group', { name: '“Previously on…” after being away' }).getByLabel('Only when I ask').check();
    await page.evaluate((id) => localStorage.setItem(`roleplay-engine/seen/${id}`, String(Date.now() - 48 * 3_600_000)), chatId);
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.locator('.turn').first().waitFor();
    await page.waitForTimeout(1_000);
    expect(await page.getByTestId('recap').count()).toBe(0);
  });
});
