import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { keptBackups, lastReply, launchBrowser, message, openTab, role, startApp, storyReady, waitForDatabase } from './harness.ts';
import { CHECKPOINT_MS } from '../../src/engine/leader/narrator.ts';

let upstream: FakeUpstream;
let app: Awaited<ReturnType<typeof startApp>>;
let context: BrowserContext | undefined;
let replies = 0;
/** Milliseconds between streamed words; a reply is 60 words. */
let wordDelay = 5;
/** The next streamed request fails with this upstream status instead. */
let failNext: number | null = null;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.setFallback(async (req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'dphn/Dolphin-Mistral-24B-Venice-Edition' }, { id: 'NousResearch/Hermes-3-Llama-3.1-8B' }] });
    if (!req.path.endsWith('/chat/completions')) return json(res, 404, { error: 'no' });
    const body = req.body as CompletionRequest;
    if (!body.stream) return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
    if (failNext !== null) {
      const status = failNext;
      failNext = null;
      return json(res, status, { error: { message: status === 401 ? 'invalid api key' : 'overloaded' } });
    }
    const n = ++replies;
    startSse(res);
    for (let i = 0; i < 60 && !req.aborted(); i++) {
      res.write(sseChunk(i === 0 ? `Reply ${n}:` : ` word${i}`));
      await new Promise((r) => setTimeout(r, wordDelay));
    }
    if (!req.aborted()) res.end('data: [DONE]\n\n');
  });
  app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
});
afterAll(async () => {
  await app.relay.close();
  await upstream.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  wordDelay = 5;
});

/** The narrator streams; the background analysis asks for JSON without streaming. */
const narratorCalls = () => upstream.completions().filter((r) => (r.body as CompletionRequest).stream);
const narratorRequests = () => narratorCalls().length;
const replyTexts = (page: Page) => page.locator('.turn.assistant .story-text').allTextContents();

async function send(page: Page, text: string) {
  await message(page).fill(text);
  await message(page).press('Enter');
}

async function waitForFinished(page: Page, count: number) {
  await expect.poll(() => page.locator('.turn.assistant:not([data-status="streaming"])').count(), { timeout: 20_000 }).toBe(count);
}

/** A story ready to play; returns the chat's URL. */
const storyUrl = async (page: Page) => `${app.url}/chats/${await storyReady(page)}`;

describe('playing a story', () => {
  it('takes a new user from an empty profile through who-you-are, a new bot and the kickoff into three turns', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await page.waitForURL('**/settings?welcome=1');
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Pronouns').fill('she/her');
    await page.getByLabel('Persona', { exact: true }).fill('A cartographer who maps storms.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();

    await page.waitForURL('**/bots/new');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await expect.poll(() => page.locator('#field-name-error').textContent(), { timeout: 15_000 }).toBe('must not be empty');
    await page.getByLabel('Name').fill('Mira');
    await page.getByLabel('Persona').fill('A wry ship captain.');
    await page.getByLabel('Voice sample 1', { exact: true }).fill('"Hold fast."');
    await page.getByRole('button', { name: 'Add voice sample' }).click();
    await page.getByLabel('Voice sample 2', { exact: true }).fill('"The sea does not wait."');
    await page.getByLabel('Traits').fill('wry, loyal');
    await page.getByLabel('Backstory').fill('Grew up on the docks.');
    await page.getByLabel('Relationship to you').fill('Old friends.');
    await page.getByLabel('Kickoff').fill('Rain lashes the deck as you board the Gull.');
    await page.getByRole('button', { name: 'Create bot' }).click();

    // The classifier's proposal opens as an editable form.
    await page.getByRole('button', { name: 'Start the story' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Title').fill('Storm crossing');
    await page.getByRole('button', { name: 'Start the story' }).click();
    await message(page).waitFor();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('Storm crossing');
    expect(await replyTexts(page)).toEqual(['Rain lashes the deck as you board the Gull.']);

    for (const [i, line] of ['*climbs aboard* "Where to?"', '"And the map?" ((keep it short))', '*sits down*'].entries()) {
      await send(page, line);
      await waitForFinished(page, i + 2);
    }
    const texts = await replyTexts(page);
    expect(texts).toHaveLength(4);
    expect(texts.slice(1).every((t) => /^Reply \d+: word1 word2 .* word59$/.test(t))).toBe(true);
    expect(narratorRequests()).toBe(3);
    // OOC was shown to the user, dimmed, and never sent upstream.
    expect(await page.locator('.turn.user .ooc').textContent()).toBe('((keep it short))');
    expect(JSON.stringify(upstream.completions().map((r) => r.body))).not.toContain('keep it short');
    // The bot's voice samples and the user's persona reached the narrator.
    const lastPrompt = JSON.stringify(narratorCalls().at(-1)!.body);
    expect(lastPrompt).toContain('The sea does not wait.');
    expect(lastPrompt).toContain('A cartographer who maps storms.');
    // Shift+Enter makes a new line instead of sending.
    await message(page).fill('first line');
    await message(page).press('Shift+Enter');
    await message(page).type('second line');
    expect(await message(page).inputValue()).toBe('first line\nsecond line');
    expect(narratorRequests()).toBe(3);
  });

  it('mirrors a streaming reply to a second tab, which can Stop it; the upstream sees one request per turn', async () => {
    ({ context } = await launchBrowser());
    const a = await openTab(context, `${app.url}/chats`);
    const url = await storyUrl(a);
    await a.goto(url);
    // A's reload handed the database to its new page: let that page take it before B opens, or B
    // may be first in line for it.
    await waitForDatabase(a);
    const b = await openTab(context, url);
    expect([await role(a), await role(b)]).toEqual(['leader', 'follower']);
    const before = narratorRequests();

    wordDelay = 40;
    await send(b, '"Tell me about the storm."');
    // B, the follower, sees the reply grow while it streams.
    await expect.poll(async () => (await lastReply(b).getAttribute('data-status')) === 'streaming' && ((await lastReply(b).textContent()) ?? '').includes('word3'), { timeout: 10_000 }).toBe(true);
    expect(await b.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    // A third tab opened mid-stream shows the text so far at once, then follows.
    const c = await openTab(context, url);
    await expect.poll(async () => ((await lastReply(c).textContent()) ?? '').includes('word'), { timeout: 5_000 }).toBe(true);
    await waitForFinished(a, 2);
    await waitForFinished(b, 2);
    await waitForFinished(c, 2);
    expect((await replyTexts(b)).at(-1)).toBe((await replyTexts(a)).at(-1));
    expect((await replyTexts(c)).at(-1)).toBe((await replyTexts(a)).at(-1));
    expect((await replyTexts(a)).at(-1)).toMatch(/word59$/);
    expect(narratorRequests()).toBe(before + 1);
    await c.close();

    // Stop from the follower truncates the turn in both tabs and ends the upstream request.
    await send(a, '"Go on."');
    await expect.poll(async () => ((await lastReply(b).textContent()) ?? '').includes('word2'), { timeout: 10_000 }).toBe(true);
    await b.getByRole('button', { name: 'Stop' }).click();
    for (const page of [a, b]) {
      await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('truncated');
      await expect.poll(() => page.locator('[data-banner="reply-problem"]').textContent(), { timeout: 15_000 }).toMatch(/You stopped this reply/);
    }
    const stopped = (await replyTexts(a)).at(-1)!;
    expect(stopped).toMatch(/^Reply \d+: word1/);
    expect(stopped).not.toMatch(/word59/);
    expect((await replyTexts(b)).at(-1)).toBe(stopped);
    expect(narratorRequests()).toBe(before + 2);
    await expect.poll(() => narratorCalls().at(-1)!.aborted(), { timeout: 15_000 }).toBe(true);

    // One Regenerate, in the banner beside the problem, not a second one in the composer.
    for (const page of [a, b]) expect(await page.getByRole('button', { name: 'Regenerate', exact: true }).count()).toBe(1);

    // Regenerate from the banner gives a full reply in place of the stopped one.
    wordDelay = 2;
    await b.locator('[data-banner="reply-problem"]').getByRole('button', { name: 'Regenerate' }).click();
    await expect.poll(async () => (await replyTexts(a)).at(-1), { timeout: 20_000 }).toMatch(/word59$/);
    expect(await a.locator('.turn.assistant').count()).toBe(3);
    expect(narratorRequests()).toBe(before + 3);
  });

  it("a reply sent as soon as the chat opens streams undisturbed: the day's backup waits for a quiet moment, then is written", async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const url = await storyUrl(page);
    // The first open with stories in it owes a daily backup; a reply streams for three seconds.
    await page.goto(url);
    wordDelay = 50;
    await send(page, '"Tell me everything."');
    await expect.poll(async () => (await lastReply(page).getAttribute('data-status')) === 'streaming', { timeout: 10_000 }).toBe(true);
    // Writing the whole log in the middle of the reply would hold its words back: none is written while it streams.
    while ((await lastReply(page).getAttribute('data-status')) === 'streaming') {
      expect(await keptBackups(page)).toEqual([]);
      await page.waitForTimeout(200);
    }
    await waitForFinished(page, 2);
    await expect.poll(async () => (await keptBackups(page)).filter((n) => /-daily\.jsonl\.gz$/.test(n)), { timeout: 15_000 }).toHaveLength(1);
  });

  it('shows a relay error as a specific banner whose Retry works once the problem is gone', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    await page.goto(await storyUrl(page));
    failNext = 401;
    await send(page, '"Hello?"');
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 10_000 }).toBe('truncated');
    const banner = page.locator('[data-banner="reply-problem"]');
    await expect.poll(() => banner.textContent(), { timeout: 15_000 }).toMatch(/rejected the API key. Check FEATHERLESS_API_KEY/);
    // The failed reply is a clearly failed entry, not an empty "…" message; being empty, it is in no prompt.
    expect(await lastReply(page).getByTestId('failed-reply').textContent()).toMatch(/^No reply: it failed/);
    expect(await lastReply(page).locator('.story-text').count()).toBe(0);
    failNext = 503;
    await banner.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => banner.textContent(), { timeout: 10_000 }).toMatch(/The model server had a problem \(503, overloaded\)\. Try again\./);
    await banner.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(async () => (await replyTexts(page)).at(-1), { timeout: 10_000 }).toMatch(/word59$/);
    const lastPrompt = narratorCalls().at(-1)!.body as CompletionRequest;
    expect(lastPrompt.messages.filter((m) => m.role === 'assistant' && !String(m.content).trim())).toEqual([]);
    expect(await banner.count()).toBe(0);
    expect(await page.locator('.turn.assistant').count()).toBe(2); // the kickoff and the one reply that stands
  });

  it('a tab killed mid-stream leaves a truncated reply with what arrived, and nothing is re-run', async () => {
    ({ context } = await launchBrowser());
    const a = await openTab(context, `${app.url}/chats`);
    const url = await storyUrl(a);
    await a.goto(url);
    wordDelay = 100;
    await send(a, '"A long story, please."');
    await expect.poll(async () => ((await lastReply(a).textContent()) ?? '').includes('word25'), { timeout: 10_000 }).toBe(true);
    const requests = narratorRequests();
    const shown = (await replyTexts(a)).at(-1)!;
    const cdp = await context.newCDPSession(a);
    const crashed = a.waitForEvent('crash');
    void cdp.send('Page.crash').catch(() => {});
    await crashed;

    wordDelay = 5;
    const b = await openTab(context, url);
    await expect.poll(() => lastReply(b).getAttribute('data-status'), { timeout: 15_000 }).toBe('truncated');
    const kept = (await replyTexts(b)).at(-1)!;
    // What was checkpointed (every CHECKPOINT_MS) survives: at most that long of words is lost.
    // The stream ran on between reading the screen and the crash, so either text may be the longer.
    const saved = kept.replace(/…$/, '').trim();
    expect(shown.startsWith(saved) || saved.startsWith(shown.trim())).toBe(true);
    const words = (text: string) => text.split(/\s+/).length;
    expect(kept).toMatch(/word\d/);
    expect(words(kept)).toBeGreaterThanOrEqual(words(shown) - CHECKPOINT_MS / 100 - 3);
    expect(kept).not.toMatch(/word59/);
    await expect.poll(() => b.locator('[data-banner="reply-problem"]').textContent(), { timeout: 15_000 }).toMatch(/interrupted/);
    expect(narratorRequests()).toBe(requests);
  });
});
