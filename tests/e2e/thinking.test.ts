import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, runOnModel, thinkingModel } from '../support/fake-upstream.ts';
import { browsers, lastReply, message, messageAction, openTab, servedOnFakeModel, storyReady } from './harness.ts';

/**
 * A thinking model in the browser (issue 35, part 1): its thinking streams into a folded
 * "Thinking…" above the reply, then says how long it thought; it never shows in the reply, and the
 * next prompt is sent without it. The fake model thinks in tags, a word every 60 ms.
 */
const THINKING = `The player asks about the map. Mira hid it under the floorboard; she should deflect with a joke. ${'She weighs it again. '.repeat(12).trim()}`;
let replies = 0;
const served = servedOnFakeModel(async (req, res) => {
  if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'dphn/Dolphin-Mistral-24B-Venice-Edition' }] });
  if (!req.path.endsWith('/chat/completions')) return json(res, 404, { error: 'no' });
  const body = req.body as CompletionRequest;
  // The classifier answers as a thinking model does: thinking with braces, chatter, a fence, a trailing comma.
  if (!body.stream) {
    const messy = `<think>The turn: {short}. Feelings {warm}.</think>\nSure! Here it is:\n\`\`\`json\n${demoReply(body).replace(/}\s*$/, ',}')}\n\`\`\``;
    return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: messy }, finish_reason: 'stop' }] });
  }
  replies++;
  if (replies === 3) return runOnModel('Mira: Mira shrugs. "Suit yourself."\nAda: I leave.')(req, res);
  return thinkingModel('tags', THINKING, replies === 1 ? 'Mira laughs. "A map? Only of the tavern, love."' : 'Mira shrugs.', 60)(req, res);
});
const { app } = served;
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe('a thinking model', () => {
  it('streams its thinking into a folded block above the reply, then says how long it thought; the reply and the next prompt are without it', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);
    await message(page).fill('"Where is the map?"');
    await message(page).press('Enter');

    const thinking = lastReply(page).getByTestId('thinking');
    // While it thinks: the block says so, folded, and the reply is still empty.
    const whileThinking = () =>
      lastReply(page).evaluate((turn) => [turn.querySelector('[data-testid=thinking] summary')?.textContent, turn.querySelector('.story-text')?.textContent, turn.querySelector('[data-testid=thinking]')?.hasAttribute('open')]);
    await expect.poll(whileThinking, { timeout: 15_000 }).toEqual(['Thinking…', '', false]);
    await expect.poll(() => thinking.locator('.thinking-text').textContent(), { timeout: 15_000 }).toMatch(/^The player asks/);

    await expect.poll(() => thinking.locator('summary').textContent(), { timeout: 20_000 }).toMatch(/^Thought for \d+ s$/);
    await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('done');
    expect(await lastReply(page).locator('.story-text').textContent()).toBe('Mira laughs. "A map? Only of the tavern, love."');
    expect(await thinking.getAttribute('open')).toBeNull();
    await thinking.locator('summary').click();
    expect(await thinking.locator('.thinking-text').textContent()).toBe(THINKING);
    // After a reload, from the story as stored.
    await page.reload();
    await expect.poll(() => lastReply(page).getByTestId('thinking').locator('summary').textContent(), { timeout: 15_000 }).toMatch(/^Thought for \d+ s$/);

    await message(page).fill('"Really?"');
    await message(page).press('Enter');
    // The opening, the first reply, and this one.
    await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(3);
    const narrator = served.upstream.completions().filter((r) => (r.body as CompletionRequest).stream);
    const prompt = JSON.stringify((narrator.at(-1)!.body as CompletionRequest).messages);
    expect(prompt).toContain('Only of the tavern');
    expect(prompt).not.toContain('deflect');

    // Each reply's analysis came back messy and was read in its one call: no retry, no failure.
    const analyses = () => served.upstream.completions().filter((r) => !(r.body as CompletionRequest).stream).length;
    await expect.poll(() => page.evaluate(async (id) => (await (globalThis as any).roleplayEngine.engine.analysisStatus(id)).pending, chatId), { timeout: 20_000 }).toBe(0);
    expect(await page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.classifierFailures()).length)).toBe(0);
    expect(analyses()).toBe(2);
  });

  it('cuts a reply that runs on into the player\'s line, takes its leading label off, and says so in "Why this reply?"', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const chatId = await storyReady(page);
    await page.goto(`${app.url}/chats/${chatId}`);
    await message(page).fill('"Staying?"');
    await message(page).press('Enter');
    await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(2);
    expect(await lastReply(page).locator('.story-text').textContent()).toBe('Mira shrugs. "Suit yourself."');
    await messageAction(lastReply(page), 'Why this reply?');
    const why = page.getByRole('dialog', { name: 'Why this reply' });
    await expect.poll(() => why.getByTestId('reply-cut').textContent(), { timeout: 15_000 }).toBe('The reply ran on and was cut at “↵Ada:”.');
    expect(await why.getByTestId('label-trimmed').textContent()).toBe('“Mira:” was taken off its start.');
  });
});
