import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { keptBackups, lastReply, launchBrowser, message, messageAction, offeredForTheLatest, openStoryChat, openTab, say, startApp } from './harness.ts';

let context: BrowserContext | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await context?.close();
  context = undefined;
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const pending = (page: Page, chatId: string) =>
  page.evaluate((id) => (globalThis as any).roleplayEngine.engine.analysisStatus(id), chatId) as Promise<{ pending: number }>;

const texts = (page: Page) => page.locator('.turn .story-text').allTextContents();

/** The story (you, Mira, a chat) in a leader tab and a follower tab, both showing the chat. */
async function storyInTwoTabs(url: string, options: { drawerOpen?: boolean } = {}) {
  ({ context } = await launchBrowser());
  const { page: leader, chatId } = await openStoryChat(context, url, options);
  const follower = await openTab(context, `${url}/chats/${chatId}`);
  return { leader, follower, chatId };
}

/** Plays each line in turn, waiting for its reply and the reply's analysis. */
async function play(page: Page, chatId: string, lines: readonly string[]) {
  // Counted once the transcript is on screen (it always opens with the narration), never before.
  await page.locator('.turn').first().waitFor();
  const before = await page.locator('.turn.user').count();
  const settled = () =>
    page.evaluate(() => {
      const turns = [...document.querySelectorAll('.turn')];
      const last = turns.at(-1);
      return { yours: turns.filter((t) => t.classList.contains('user')).length, replied: Boolean(last?.classList.contains('assistant') && last.getAttribute('data-status') === 'done') };
    });
  for (const [i, line] of lines.entries()) {
    await message(page).fill(line);
    await message(page).press('Enter');
    await expect.poll(settled, { timeout: 20_000 }).toEqual({ yours: before + i + 1, replied: true });
    await expect.poll(() => pending(page, chatId).then((p) => p.pending), { timeout: 20_000 }).toBe(0);
  }
}

/**
 * An upstream whose replies are numbered ("Answer 1.", "Answer 2.", ...) and whose analysis of a
 * reply moves Mira's feeling toward Ada by +10 for answer 2, -10 for any other: so which version is
 * in force shows in the drawer.
 */
async function numberedUpstream() {
  let replies = 0;
  const analysed: string[] = [];
  const upstream: FakeUpstream = await startFakeUpstream();
  upstream.setFallback((req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'dphn/Dolphin-Mistral-24B-Venice-Edition' }, { id: 'NousResearch/Hermes-3-Llama-3.1-8B' }] });
    const body = req.body as CompletionRequest | undefined;
    if (!body) return json(res, 400, { error: 'no body' });
    if (!body.stream) {
      const prompt = body.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      const answer = /Answer (\d+)\./.exec(prompt.slice(prompt.lastIndexOf('Answer ')))?.[0] ?? '?';
      analysed.push(answer);
      const delta = answer === 'Answer 2.' ? 10 : -10;
      const content = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta: delta, trustDelta: 0, newFacts: [`heard ${answer}`] } } });
      return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    }
    startSse(res);
    res.write(sseChunk(`Answer ${++replies}.`));
    res.end('data: [DONE]\n\n');
  });
  const app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
  cleanups.push(() => app.relay.close(), () => upstream.close());
  return { app, analysed };
}

describe('versions of a reply (swipes)', () => {
  it('regenerate adds a version; ‹ › and the arrow keys flip them, the drawer follows, every tab sees it, a reload keeps it', async () => {
    const { app, analysed } = await numberedUpstream();
    const { leader, follower, chatId } = await storyInTwoTabs(app.url, { drawerOpen: true });
    const botId = await leader.evaluate((id) => (globalThis as any).roleplayEngine.engine.chatState(id).then((s: { botId: string }) => s.botId), chatId);
    const affinity = (page: Page) => page.locator(`[data-testid="edge"][data-source="${botId}"] [data-testid="affinity"]`).textContent();

    await say(leader, '"Look at the sails."', 'Answer 1.');
    await expect.poll(() => pending(leader, chatId).then((p) => p.pending), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => affinity(leader), { timeout: 15_000 }).toBe('40');
    expect(await leader.getByRole('button', { name: 'Previous version' }).count()).toBe(0); // one version: no controls

    await leader.getByRole('button', { name: 'Regenerate' }).click();
    await expect.poll(() => lastReply(leader).textContent(), { timeout: 20_000 }).toContain('Answer 2.');
    await expect.poll(() => leader.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('2/2');
    await expect.poll(() => affinity(leader), { timeout: 20_000 }).toBe('60');
    await expect.poll(() => follower.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('2/2');
    expect(await leader.getByRole('button', { name: 'Next version' }).isDisabled()).toBe(true);

    await leader.getByRole('button', { name: 'Previous version' }).click();
    await expect.poll(() => lastReply(leader).textContent(), { timeout: 15_000 }).toContain('Answer 1.');
    await expect.poll(() => leader.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('1/2');
    await expect.poll(() => affinity(leader), { timeout: 15_000 }).toBe('40');
    await expect.poll(() => lastReply(follower).textContent(), { timeout: 15_000 }).toContain('Answer 1.');
    await expect.poll(() => follower.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('1/2');

    // → with an empty composer flips forward; typed text keeps the arrows for the text.
    await message(leader).fill('half a thought');
    await message(leader).press('ArrowLeft');
    expect(await leader.getByTestId('version').textContent()).toBe('1/2');
    await message(leader).fill('');
    await message(leader).press('ArrowRight');
    await expect.poll(() => leader.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('2/2');
    await expect.poll(() => affinity(leader), { timeout: 15_000 }).toBe('60');

    await leader.reload();
    await expect.poll(() => leader.getByTestId('version').textContent(), { timeout: 20_000 }).toBe('2/2');
    await expect.poll(() => lastReply(leader).textContent(), { timeout: 15_000 }).toContain('Answer 2.');
    await expect.poll(() => affinity(leader), { timeout: 15_000 }).toBe('60');
    // Each version was analysed once, when it was written; flipping asked the model nothing.
    expect(analysed).toEqual(['Answer 1.', 'Answer 2.']);
  });
});

describe('rewind to here', () => {
  it('previews the impact, rewinds, offers Undo, leaves a stub that restores later, in every tab', async () => {
    const { app } = await numberedUpstream();
    const { leader, follower, chatId } = await storyInTwoTabs(app.url);
    await play(leader, chatId, ['"One."', '"Two."', '"Three."']);
    const all = await texts(leader);
    expect(all).toHaveLength(7);

    // Rewind to the first reply: the preview says what goes, Esc changes nothing.
    const firstReply = leader.locator('.turn.assistant').nth(1);
    await firstReply.hover();
    await messageAction(firstReply, 'Rewind to here');
    const dialog = leader.getByRole('dialog', { name: 'Rewind to here?' });
    await expect.poll(() => dialog.getByTestId('rewind-impact').textContent(), { timeout: 15_000 }).toContain('4 turns will be hidden.');
    const impact = await dialog.getByTestId('rewind-impact').innerText();
    expect(impact).toMatch(/Clock: 1 January 2026, 20:15 → 1 January 2026, 20:05/);
    // Answers 2 (+10) and 3 (−10) cancel out: only what changes is listed.
    expect(impact).toMatch(/Mira → Ada: forgets 2 facts/);
    expect(impact).not.toMatch(/affinity/);
    expect(impact).toMatch(/Mira forgets 2 memories/);
    await leader.keyboard.press('Escape');
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0);
    expect(await texts(leader)).toEqual(all);

    await messageAction(firstReply, 'Rewind to here');
    await dialog.getByRole('button', { name: 'Rewind' }).click();
    await expect.poll(() => texts(leader), { timeout: 15_000 }).toEqual(all.slice(0, 3));
    await expect.poll(() => leader.getByTestId('rewind-toast').textContent(), { timeout: 15_000 }).toContain('Rewound 4 turns.');
    await expect.poll(() => leader.getByTestId('rewound-stub').textContent(), { timeout: 15_000 }).toContain('4 turns rewound');
    await expect.poll(() => texts(follower), { timeout: 15_000 }).toEqual(all.slice(0, 3));

    // Undo from the toast brings back everything.
    await leader.getByTestId('rewind-toast').getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => texts(leader), { timeout: 15_000 }).toEqual(all);
    await expect.poll(() => leader.getByTestId('rewound-stub').count(), { timeout: 15_000 }).toBe(0);

    // Rewound again, then restored after a reload, from the follower: the stub is for good.
    await firstReply.hover();
    await messageAction(firstReply, 'Rewind to here');
    await dialog.getByRole('button', { name: 'Rewind' }).click();
    await expect.poll(() => texts(follower), { timeout: 15_000 }).toEqual(all.slice(0, 3));
    await follower.reload();
    await follower.getByTestId('rewound-stub').getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => texts(follower), { timeout: 15_000 }).toEqual(all);
    await expect.poll(() => texts(leader), { timeout: 15_000 }).toEqual(all);
  });
});

describe('edit and delete', () => {
  it('edits a message in one tab and the other sees it; Save and regenerate answers the new words; Delete leaves an undoable stub', async () => {
    const { app } = await numberedUpstream();
    const { leader, follower, chatId } = await storyInTwoTabs(app.url);
    await say(leader, '"Hello there."', 'Answer 1.');

    // Esc cancels; Ctrl+Enter saves; the turn says it was edited, in both tabs.
    const mine = leader.locator('.turn.user').last();
    await mine.hover();
    await messageAction(mine, 'Edit');
    const editor = leader.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('"Goodbye."');
    await editor.press('Escape');
    await expect.poll(() => editor.count(), { timeout: 15_000 }).toBe(0);
    expect((await texts(leader)).at(-2)).toBe('"Hello there."');
    await messageAction(mine, 'Edit');
    await editor.fill('"Hello, captain."');
    await editor.press('Control+Enter');
    await expect.poll(() => texts(follower).then((t) => t.at(-2)), { timeout: 15_000 }).toBe('"Hello, captain."');
    await expect.poll(() => follower.locator('.turn.user').last().locator('.edited-mark').count(), { timeout: 15_000 }).toBe(1);
    expect((await texts(leader)).at(-1)).toContain('Answer 1.'); // Save keeps the reply

    // Save and regenerate: a new reply to the new words, as a second version.
    await messageAction(mine, 'Edit');
    await editor.fill('"Hello, Mira."');
    await leader.getByRole('button', { name: 'Save and regenerate' }).click();
    await expect.poll(() => lastReply(leader).textContent(), { timeout: 20_000 }).toContain('Answer 2.');
    await expect.poll(() => leader.getByTestId('version').textContent(), { timeout: 15_000 }).toBe('2/2');
    expect((await texts(leader)).at(-2)).toBe('"Hello, Mira."');

    // Delete hides the message behind a stub; Undo delete brings it back.
    await mine.hover();
    await messageAction(mine, 'Delete');
    await expect.poll(() => follower.getByTestId('deleted-stub').textContent(), { timeout: 15_000 }).toContain("Ada's message deleted");
    expect(await texts(follower)).not.toContain('"Hello, Mira."');
    await follower.getByRole('button', { name: 'Undo delete' }).click();
    await expect.poll(() => texts(leader).then((t) => t.at(-2)), { timeout: 15_000 }).toBe('"Hello, Mira."');
  });
});

describe('continue', () => {
  it('goes on from the last word in the same reply, streamed to every tab', async () => {
    const { app } = await numberedUpstream();
    const { leader, follower, chatId } = await storyInTwoTabs(app.url);
    await say(leader, '"Tell me more."', 'Answer 1.');
    await messageAction(lastReply(follower), 'Continue');
    await expect.poll(() => lastReply(leader).locator('.story-text').textContent(), { timeout: 20_000 }).toBe('Answer 1. Answer 2.');
    await expect.poll(() => lastReply(follower).locator('.story-text').textContent(), { timeout: 15_000 }).toBe('Answer 1. Answer 2.');
    expect(await leader.locator('.turn.assistant').count()).toBe(2); // the opening and this one reply
  });
});

describe('reset a bot', () => {
  it('needs the exact name typed; the chat keeps its turns behind a divider and starts over; Undo reset brings it all back', async () => {
    const { app } = await numberedUpstream();
    ({ context } = await launchBrowser());
    const { page, chatId } = await openStoryChat(context, app.url, { drawerOpen: true });
    await say(page, '"Remember this."', 'Answer 1.');
    await expect.poll(() => pending(page, chatId).then((p) => p.pending), { timeout: 20_000 }).toBe(0);
    const botId = await page.evaluate((id) => (globalThis as any).roleplayEngine.engine.chatState(id).then((s: { botId: string }) => s.botId), chatId);
    const feelings = () => page.getByTestId('edge').count();
    await expect.poll(feelings, { timeout: 15_000 }).toBeGreaterThan(0);

    await page.goto(`${app.url}/bots/${botId}/edit`);
    await page.getByRole('button', { name: 'Reset…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset Mira?' });
    const confirm = dialog.getByRole('button', { name: 'Reset Mira' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Bot name' }).fill('mira');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Bot name' }).fill('Mira');
    await confirm.click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Mira was reset' }).count(), { timeout: 15_000 }).toBe(1);
    // Everything as it was just before the reset is kept in this browser too.
    const kept = await keptBackups(page);
    expect(kept.filter((n) => /-before-reset\.jsonl\.gz$/.test(n))).toHaveLength(1);

    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(() => page.getByTestId('reset-divider').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(feelings, { timeout: 15_000 }).toBe(0);
    expect(await page.locator('.turn .story-text').allTextContents()).toContain('"Remember this."');
    // The reply above the divider is history: nothing offers to regenerate, continue or flip it.
    for (const name of ['Regenerate', 'Continue', 'Previous version']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await offeredForTheLatest(page)).not.toEqual(expect.arrayContaining(['Regenerate']));
    expect(await offeredForTheLatest(page)).not.toEqual(expect.arrayContaining(['Continue']));
    await say(page, '"Hello again."', 'Answer 2.');

    await page.goto(`${app.url}/bots/${botId}/edit`);
    await page.getByRole('button', { name: 'Undo reset' }).click(); // still offered on a later visit
    await expect.poll(() => page.getByRole('button', { name: 'Undo reset' }).count(), { timeout: 15_000 }).toBe(0);
    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(() => page.getByTestId('reset-divider').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(feelings, { timeout: 15_000 }).toBeGreaterThan(0);
  });
});

describe('why this reply', () => {
  it('opens the prompt of an old reply after a reload: parts by tier with tokens, and the memories it was given', async () => {
    const { app } = await numberedUpstream();
    ({ context } = await launchBrowser());
    const { page, chatId } = await openStoryChat(context, app.url, {
      // Pin the memory the kickoff left Mira, so the prompt surely carries one.
      before: (tab, id) =>
        tab.evaluate(async (id) => {
          const engine = (globalThis as any).roleplayEngine.engine;
          const state = await engine.chatState(id);
          await engine.pinMemory(id, state.memories[0].id, true);
        }, id),
    });
    await play(page, chatId, ['"Where did you hide the lighthouse key?"', '"And the boat?"']);
    await page.reload();
    const first = page.locator('.turn.assistant').nth(1);
    await first.hover();
    await messageAction(first, 'Why this reply?');
    const dialog = page.getByRole('dialog', { name: 'Why this reply' });
    await expect.poll(() => dialog.getByTestId('prompt-total').textContent(), { timeout: 15_000 }).toMatch(/^[\d,]+ tokens sent \(budget 6,000 soft, 8,000 hard\)/);
    const must = dialog.locator('[data-tier="must"]');
    expect(await must.innerText()).toMatch(/persona\s*\d+ tokens/);
    expect(await must.innerText()).toMatch(/new turn\s*\d+ tokens/);
    expect(await dialog.getByTestId('inspected-memory').first().innerText()).toMatch(/pinned/);
    await dialog.getByText('persona').click();
    await expect.poll(() => dialog.locator('.part-text').first().textContent(), { timeout: 15_000 }).toContain('Mira');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0);
  });
});

describe('branch from here', () => {
  it('opens a new chat "<title> (branch)" with the story up to that turn; the original is untouched', async () => {
    const { app } = await numberedUpstream();
    ({ context } = await launchBrowser());
    const { page, chatId } = await openStoryChat(context, app.url);
    await play(page, chatId, ['"One."', '"Two."']);
    const all = await texts(page);
    const firstReply = page.locator('.turn.assistant').nth(1);
    await firstReply.hover();
    await messageAction(firstReply, 'Branch from here');
    await expect.poll(() => page.url(), { timeout: 15_000 }).not.toContain(chatId);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('A story with Mira (branch)');
    await expect.poll(() => texts(page), { timeout: 15_000 }).toEqual(all.slice(0, 3));
    await page.goto(`${app.url}/chats`);
    await expect.poll(() => page.getByText('A story with Mira (branch)').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.goto(`${app.url}/chats/${chatId}`);
    await expect.poll(() => texts(page), { timeout: 15_000 }).toEqual(all);
  });
});

describe('drawer edits', () => {
  it('sets values by hand with the rule shown on a bad one; marks them; the other tab follows; Undo last edit takes one back', async () => {
    const { app } = await numberedUpstream();
    ({ context } = await launchBrowser());
    const { page, chatId } = await openStoryChat(context, app.url, { drawerOpen: true });
    const other = await openTab(context, `${app.url}/chats/${chatId}`);
    const botId = await page.evaluate((id) => (globalThis as any).roleplayEngine.engine.chatState(id).then((s: { botId: string }) => s.botId), chatId);
    const edge = (p: Page) => p.locator(`[data-testid="edge"][data-source="${botId}"]`);

    await page.getByRole('button', { name: 'Edit affinity of Mira toward Ada' }).click();
    const number = page.getByRole('spinbutton', { name: 'affinity of Mira toward Ada, as a number' });
    await number.fill('150');
    await number.press('Enter');
    await expect.poll(() => page.getByRole('group', { name: 'Editing affinity of Mira toward Ada' }).getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/100/);
    expect(await edge(page).getByTestId('affinity').count()).toBe(0); // still editing, nothing written
    await number.fill('85');
    await number.press('Enter');
    await expect.poll(() => edge(page).getByTestId('affinity').textContent(), { timeout: 15_000 }).toBe('85');
    await expect.poll(() => edge(other).getByTestId('affinity').textContent(), { timeout: 15_000 }).toBe('85');
    expect(await edge(page).locator('.edited-mark').first().textContent()).toContain('edited by you');

    // Facts: add one, forget one.
    await edge(page).getByRole('textbox', { name: 'A new fact Mira knows about Ada' }).fill('Ada cannot swim.');
    await edge(page).getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => edge(other).getByRole('list').textContent(), { timeout: 15_000 }).toContain('Ada cannot swim.');
    await edge(page).getByRole('button', { name: 'Forget: Ada cannot swim.' }).click();
    await expect.poll(() => edge(other).getByRole('list').textContent(), { timeout: 15_000 }).not.toContain('Ada cannot swim.');

    // The place's name, then Undo last edit twice: the name, then the fact list come back.
    await page.getByRole('button', { name: 'Edit place name' }).click();
    await page.getByRole('textbox', { name: 'place name' }).fill('The lighthouse');
    await page.getByRole('textbox', { name: 'place name' }).press('Enter');
    await expect.poll(() => other.getByTestId('drawer-place').textContent(), { timeout: 15_000 }).toContain('The lighthouse');
    await page.getByRole('button', { name: 'Undo last edit' }).click();
    await expect.poll(() => other.getByTestId('drawer-place').textContent(), { timeout: 15_000 }).not.toContain('The lighthouse');
    await page.getByRole('button', { name: 'Undo last edit' }).click();
    await expect.poll(() => edge(page).getByRole('list').textContent(), { timeout: 15_000 }).toContain('Ada cannot swim.');
  });
});
