import { describe, expect, it } from 'vitest';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, sseChunk, startSse } from '../support/fake-upstream.ts';
import { browsers, message, openStoryChat, servedOnFakeModel } from './harness.ts';

/**
 * The first reply streams its first words and then waits for the test to let it end: on a loaded
 * machine the demo model's reply could end before the player's second line was sent, and the line
 * then went at once, with nothing to wait for. Later replies end at once.
 */
let endFirstReply: () => void = () => {};
const firstReplyHeld = new Promise<void>((resolve) => (endFirstReply = resolve));
let replies = 0;
const { app } = servedOnFakeModel(async (req, res) => {
  if (!req.path.endsWith('/chat/completions')) return json(res, 200, { data: [] });
  const body = req.body as CompletionRequest;
  if (!body.stream) return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
  startSse(res);
  res.write(sseChunk('Mira looks at the chart'));
  if (++replies === 1) await firstReplyHeld;
  res.write(sseChunk(' and points north.'));
  res.end('data: [DONE]\n\n');
});
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
    endFirstReply();
    // The reply ends, the waiting line goes, and the composer is empty again.
    const yours = page.locator('.turn.user');
    await expect.poll(() => yours.allTextContents(), { timeout: 20_000 }).toEqual([expect.stringContaining('Where are we headed?'), expect.stringContaining('And after that?')]);
    await expect.poll(() => page.locator('.turn.assistant').count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => message(page).inputValue(), { timeout: 15_000 }).toBe('');
  });
});
