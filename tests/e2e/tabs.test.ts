import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { botList, browsers, createBot, exportLog, openTab, role, servedApp } from './harness.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

const botsAuthored = async (page: Parameters<typeof exportLog>[0], name: string) =>
  (await exportLog(page)).events.filter((e) => e.kind === 'bot_authored' && JSON.parse(e.payload).name === name).length;

describe('two tabs of one browser', () => {
  it('see each other\'s writes live, without a reload', async () => {
    ({ context } = await launchBrowser());
    const a = await openTab(context, `${app.url}/bots`);
    const b = await openTab(context, `${app.url}/bots`);
    expect([await role(a), await role(b)]).toEqual(['leader', 'follower']);

    await createBot(a, 'Written in the leader');
    await expect.poll(() => botList(b).allTextContents()).toEqual(['Written in the leader']);
    await createBot(b, 'Written in the follower');
    await expect.poll(() => botList(a).allTextContents()).toEqual(['Written in the follower', 'Written in the leader']);
    await expect.poll(() => botList(b).allTextContents()).toEqual(['Written in the follower', 'Written in the leader']);
  });

  it('keep working when the leader tab closes: the other takes over with nothing lost', async () => {
    ({ context } = await launchBrowser());
    const a = await openTab(context, `${app.url}/bots`);
    const b = await openTab(context, `${app.url}/bots`);
    await createBot(a, 'Before');
    await expect.poll(() => botList(b).allTextContents()).toEqual(['Before']);
    await a.close({ runBeforeUnload: true });
    await expect.poll(() => role(b)).toBe('leader');
    await createBot(b, 'After');
    await expect.poll(() => botList(b).allTextContents()).toEqual(['After', 'Before']);
    await b.reload();
    await expect.poll(() => botList(b).allTextContents()).toEqual(['After', 'Before']);
  });

  it('keep working when the leader tab crashes', async () => {
    ({ context } = await launchBrowser());
    const a = await openTab(context, `${app.url}/bots`);
    const b = await openTab(context, `${app.url}/bots`);
    await createBot(a, 'Before the crash');
    await expect.poll(() => botList(b).allTextContents()).toEqual(['Before the crash']);
    const cdp = await context.newCDPSession(a);
    const crashed = a.waitForEvent('crash');
    void cdp.send('Page.crash').catch(() => {}); // never answers: the renderer dies mid-call
    await crashed;
    await expect.poll(() => role(b), { timeout: 15_000 }).toBe('leader');
    await createBot(b, 'After the crash');
    await expect.poll(() => botList(b).allTextContents()).toEqual(['After the crash', 'Before the crash']);
  });

  for (const phase of ['before-commit', 'after-commit'] as const) {
    it(`apply a write that was in flight when the leader closed exactly once (${phase})`, async () => {
      ({ context } = await launchBrowser());
      // The leader holds every command for a while, so the test can close it mid-command.
      const a = await openTab(context, `${app.url}/bots?e2e-command-delay=1500&e2e-phase=${phase}`);
      const b = await openTab(context, `${app.url}/bots`);
      expect(await role(a)).toBe('leader');
      await createBot(b, 'In flight');
      await b.waitForTimeout(400); // the request has reached the leader and is being held
      await a.close();
      await expect.poll(() => role(b), { timeout: 15_000 }).toBe('leader');
      await expect.poll(() => botList(b).allTextContents(), { timeout: 15_000 }).toEqual(['In flight']);
      expect(await botsAuthored(b, 'In flight')).toBe(1);
      expect(await b.getByRole('alert').count()).toBe(0);
    });
  }
});
