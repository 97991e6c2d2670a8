import { describe, expect, it } from 'vitest';
import { browsers, openStoryChat, say, servedApp } from './harness.ts';
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
    await expect.poll(when).toMatch(/^just now · 1 January 2026, 20:0\d$/);
    // Every reply's analysis is in (it moves the clock a minute), so only the player moves it now.
    await expect.poll(() => page.getByTestId('updating-memories').count()).toBe(0);
    await expect.poll(() => page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.analysisStatus(location.pathname.split('/').pop())).pending)).toBe(0);

    await drawer.getByRole('button', { name: 'Next morning' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent()).toBe('2 January 2026, 07:00');
    await expect.poll(when).toMatch(/^yesterday evening · /);

    await drawer.getByRole('button', { name: 'Skip ahead…' }).click();
    const form = drawer.getByRole('form', { name: 'Skip ahead' });
    expect(await violations(page, 'the Skip ahead form')).toEqual([]);
    await form.getByLabel('How long').fill('3');
    await form.getByLabel('Hours or days').selectOption('days');
    await form.getByRole('button', { name: 'Skip', exact: true }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent()).toBe('5 January 2026, 07:00');
    await expect.poll(when).toMatch(/^four days ago · /);

    // A date before the clock is refused with the way to do it instead; the clock stays.
    await drawer.getByRole('button', { name: 'Skip ahead…' }).click();
    await form.getByLabel('Skip to').fill('2025-12-31T12:00');
    await form.getByRole('button', { name: 'Skip to then' }).click();
    await expect.poll(() => drawer.getByRole('alert').first().textContent()).toMatch(/not after the story’s clock\. To set the clock back, edit the time/);
    expect(await page.getByTestId('fiction-time').textContent()).toBe('5 January 2026, 07:00');
    await form.getByLabel('Skip to').fill('2026-03-01T09:30');
    await form.getByRole('button', { name: 'Skip to then' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent()).toBe('1 March 2026, 09:30');
    await expect.poll(when).toMatch(/^last month · /);

    // Set back by hand: the drawer's time is an edit, marked, and the words follow.
    await drawer.getByRole('button', { name: 'Edit time' }).click();
    await drawer.getByLabel('time', { exact: true }).fill('2026-01-01T22:15');
    await drawer.getByRole('group', { name: 'Editing time' }).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent()).toBe('1 January 2026, 22:15');
    await expect.poll(when).toMatch(/^two hours ago · /);
    await expect.poll(() => drawer.getByTestId('drawer-time').textContent()).toContain('edited by you');
  });
});
