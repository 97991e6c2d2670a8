import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { exportLog, launchBrowser, message, openTab, role, startApp, storyReady, waitForDatabase } from './harness.ts';

let context: BrowserContext | undefined;
const apps: Awaited<ReturnType<typeof startApp>>[] = [];
afterEach(async () => {
  await context?.close();
  context = undefined;
});
afterAll(async () => {
  for (const app of apps) await app.relay.close();
});

interface DrawerView {
  fictionTime: string;
  botId: string;
  edges: { source: string; target: string; affinity: number; trust: number; knowledge: string[] }[];
  memories: { summary: string; source: string; pinned: boolean; keywords: string }[];
  pinned: { count: number; cap: number };
}
const drawer = (page: Page, chatId: string) => page.evaluate((id) => (globalThis as any).roleplayEngine.engine.chatState(id), chatId) as Promise<DrawerView>;
const pending = (page: Page, chatId: string) => page.evaluate((id) => (globalThis as any).roleplayEngine.engine.analysisStatus(id), chatId) as Promise<{ pending: number }>;

async function play(page: Page, text: string, replies: number) {
  await message(page).fill(text);
  await message(page).press('Enter');
  await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(replies);
}

describe('the living state of a chat', () => {
  it('changes feelings, memories and the clock after each reply from the demo model, and shows them in the drawer', async () => {
    const app = await startApp();
    apps.push(app);
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const chatId = await storyReady(page);
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.goto(`${app.url}/chats/${chatId}`);
    await page.getByTestId('story-drawer').waitFor();

    const start = await drawer(page, chatId);
    expect(start.fictionTime).toBe('2026-01-01T20:00:00');
    expect(start.memories.map((m) => m.source)).toEqual(['kickoff']);
    const host = (d: DrawerView) => d.edges.find((e) => e.source === d.botId && e.target === 'you')!;
    expect(host(start)).toMatchObject({ affinity: 50, trust: 50, knowledge: [] });

    await play(page, '"I found the lighthouse map," I say, unrolling it.', 2);
    await play(page, '*points at the island* "We sail there tonight."', 3);
    await expect.poll(async () => (await pending(page, chatId)).pending, { timeout: 20_000 }).toBe(0);

    const after = await drawer(page, chatId);
    // The demo classifier moves each pair a little, takes a minute a turn and learns one fact a turn.
    expect(after.fictionTime).toBe('2026-01-01T20:02:00');
    expect(host(after)).toMatchObject({ affinity: 52, trust: 52 });
    expect(host(after).knowledge.length).toBeGreaterThan(0);
    expect(after.edges.find((e) => e.source === 'you')).toMatchObject({ affinity: 52 });
    expect(after.memories).toHaveLength(3);
    expect(after.memories[0]!.summary).toContain('We sail there tonight.');
    expect(after.memories[1]!.summary).toContain('I found the lighthouse map');

    // What the engine holds is what the drawer shows.
    await expect.poll(() => page.getByTestId('drawer-time').textContent(), { timeout: 15_000 }).toContain('1 January 2026, 20:02');
    await expect.poll(() => page.locator(`[data-testid="edge"][data-source="${after.botId}"] [data-testid="affinity"]`).textContent(), { timeout: 15_000 }).toBe('52');
    await expect.poll(() => page.getByTestId('memory').count(), { timeout: 15_000 }).toBe(3);
    // Each reply's memory is found by the analysis's keywords and who was there, and says so.
    expect(after.memories[1]!.keywords.split(', ').length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => page.getByTestId('memory').nth(1).getByTestId('memory-keywords').textContent(), { timeout: 15_000 }).toBe(`Found by: ${after.memories[1]!.keywords}`);
    await expect.poll(() => page.getByTestId('pin-count').textContent(), { timeout: 15_000 }).toBe('pinned 0/8');
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('1 January 2026, 20:02');

    // Pinning a memory and moving the clock by hand go through the engine and come back live.
    // Each pin button is named after its memory, not just "Pin".
    await page.getByTestId('memory').nth(1).getByRole('button', { name: /^Pin “.*lighthouse map/ }).click();
    await expect.poll(() => page.getByTestId('pin-count').textContent(), { timeout: 15_000 }).toBe('pinned 1/8');
    expect((await drawer(page, chatId)).memories.filter((m) => m.pinned).map((m) => m.summary)[0]).toContain('lighthouse map');
    await page.getByRole('button', { name: '+1 hour' }).click();
    await expect.poll(() => page.getByTestId('fiction-time').textContent(), { timeout: 15_000 }).toBe('1 January 2026, 21:02');
  });

  it('shows "updating memories" while the analysis runs, and a new leader finishes an analysis the old one left, once', async () => {
    // Analysis calls wait at the upstream until the test lets them go.
    const held: (() => void)[] = [];
    let analysisRequests = 0;
    const upstream: FakeUpstream = await startFakeUpstream();
    upstream.setFallback(async (req, res) => {
      if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'dphn/Dolphin-Mistral-24B-Venice-Edition' }, { id: 'NousResearch/Hermes-3-Llama-3.1-8B' }] });
      const body = req.body as CompletionRequest | undefined;
      if (!body) return json(res, 400, { error: 'no body' });
      if (!body.stream) {
        analysisRequests++;
        await new Promise<void>((resolve) => held.push(resolve));
        if (req.aborted()) return;
        return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
      }
      startSse(res);
      res.write(sseChunk('Mira nods and studies the map.'));
      res.end('data: [DONE]\n\n');
    });
    const app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
    apps.push(app);
    try {
      ({ context } = await launchBrowser());
      const leader = await openTab(context, `${app.url}/`);
      await expect.poll(() => role(leader), { timeout: 15_000 }).toBe('leader');
      const chatId = await storyReady(leader);
      await leader.goto(`${app.url}/chats/${chatId}`);
      // The reload hands the lock to the tab's new worker: only then does a second tab follow it.
      await waitForDatabase(leader);
      await expect.poll(() => role(leader), { timeout: 15_000 }).toBe('leader');
      const follower = await openTab(context, `${app.url}/chats/${chatId}`);
      await expect.poll(() => role(follower), { timeout: 15_000 }).toBe('follower');

      await play(leader, '"Keep this map safe."', 2);
      await expect.poll(() => analysisRequests, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => follower.getByTestId('updating-memories').count(), { timeout: 15_000 }).toBe(1);
      await expect.poll(() => leader.getByTestId('updating-memories').count(), { timeout: 15_000 }).toBe(1);

      // The leader goes away mid-analysis; the follower takes over and runs the job again.
      await leader.close();
      await expect.poll(() => role(follower), { timeout: 10_000 }).toBe('leader');
      await expect.poll(() => analysisRequests, { timeout: 10_000 }).toBe(2);
      for (const release of held.splice(0)) release();
      await expect.poll(() => follower.getByTestId('updating-memories').count(), { timeout: 10_000 }).toBe(0);

      const log = await exportLog(follower);
      expect(log.events.filter((e) => e.kind === 'turn_analyzed')).toHaveLength(1);
      const memories = (await drawer(follower, chatId)).memories.filter((m) => m.summary.includes('Keep this map safe'));
      expect(memories).toHaveLength(1);
    } finally {
      for (const release of held.splice(0)) release();
      await upstream.close();
    }
  });
});
