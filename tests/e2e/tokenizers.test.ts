import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json } from '../support/fake-upstream.ts';
import { browsers, lastReply, message, messageAction, openTab, servedOnFakeModel, storyReady } from './harness.ts';

/**
 * Each model family's own tokenizer in the browser (issue 35, part 3): a Llama 3 finetune, named so
 * by its class in the server's model list, is counted with Llama 3's tokenizer, fetched gzipped
 * into the tokenizer worker once; "Why this reply?" says which tokenizer counted.
 */
const EURYALE = 'Sao10K/L3.3-70B-Euryale-v2.3';
const { app } = servedOnFakeModel(async (req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { data: [{ id: EURYALE, context_length: 16_384, model_class: 'llama33-70b-16k' }] });
    if (!req.path.endsWith('/chat/completions')) return json(res, 404, { error: 'no' });
    const body = req.body as CompletionRequest;
    if (!body.stream) return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: 'Mira nods toward the harbour.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
});
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe("a model family's own tokenizer", () => {
  it('counts a Llama 3 finetune with Llama 3’s tokenizer, fetched gzipped once, and "Why this reply?" says so', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/chats`);
    const fetched: { url: string; encoding: string | undefined }[] = [];
    page.on('response', (response) => {
      if (/\/assets\/tokenizer-[^/]+\.json$/.test(response.url())) fetched.push({ url: response.url(), encoding: response.headers()['content-encoding'] });
    });
    const chatId = await storyReady(page);
    await page.evaluate((model) => (globalThis as any).roleplayEngine.engine.changeSettings({ narrativeModel: model }), EURYALE);
    await page.goto(`${app.url}/chats/${chatId}`);

    // A Send never waits for the tokenizer: a reply counted while it loads says it was estimated.
    // Each further line is another Send, as a player would make, until the tokenizer has counted
    // (three Sends on a quiet machine, more on a loaded one: building it takes seconds of a core;
    // a full run on a machine 2.5x slower than usual took more than eight).
    const said: string[] = [];
    for (let sent = 1; sent <= 14 && !said.at(-1)?.startsWith('Counted with the Llama 3'); sent++) {
      await message(page).fill(`"Line ${sent}: which way is the harbour?"`);
      await message(page).press('Enter');
      await expect.poll(() => page.locator('.turn.assistant[data-status="done"]').count(), { timeout: 20_000 }).toBe(sent + 1);
      await messageAction(lastReply(page), 'Why this reply?');
      const why = page.getByRole('dialog', { name: 'Why this reply' });
      said.push((await why.getByTestId('counted-with').textContent({ timeout: 15_000 })) ?? '');
      await page.keyboard.press('Escape');
      await expect.poll(() => why.isVisible(), { timeout: 15_000 }).toBe(false);
      // Time for the helper to start (it waits for a quiet moment) and build the tokenizer.
      if (!said.at(-1)!.startsWith('Counted with the Llama 3')) await page.waitForTimeout(2_500);
    }
    expect(said.at(-1)).toBe('Counted with the Llama 3 tokenizer, the model’s own.');
    for (const earlier of said.slice(0, -1)) expect(earlier).toMatch(/^Estimated from lengths, a little high, while the (Llama 3|cl100k) tokenizer loaded\.$/);
    // One tokenizer file, fetched once and gzipped (its config beside it is small and sent as it is).
    const tokenizers = fetched.filter((f) => /tokenizer-[^_]/.test(f.url.split('/').at(-1)!));
    expect(tokenizers.map((f) => f.encoding)).toEqual(['gzip']);
  });
});
