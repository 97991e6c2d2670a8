import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoReply } from '../../relay/demo-model.ts';
import type { CompletionRequest } from '../../relay/request-body.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { browsers, lastReply, message, openStoryChat, startApp } from './harness.ts';

let upstream: FakeUpstream;
let app: Awaited<ReturnType<typeof startApp>>;
/** What the narrator streams next, in these pieces, with this pause between them. */
let pieces: string[] = ['Fine.'];
let pauseMs = 5;
/** Another site, counting what the story's text makes the browser ask it for. */
const asked: string[] = [];
const elsewhere = createServer((req, res) => {
  asked.push(req.url ?? '');
  res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x');
});
let there = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  there = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  upstream = await startFakeUpstream();
  upstream.setFallback(async (req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'some/model' }] });
    if (!req.path.endsWith('/chat/completions')) return json(res, 404, { error: 'no' });
    const body = req.body as CompletionRequest;
    if (!body.stream) return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
    startSse(res);
    for (const piece of pieces) {
      if (req.aborted()) return;
      res.write(sseChunk(piece));
      await new Promise((r) => setTimeout(r, pauseMs));
    }
    res.end('data: [DONE]\n\n');
  });
  app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
});
afterAll(async () => {
  await app.relay.close();
  await upstream.close();
  await new Promise((resolve) => {
    elsewhere.close(resolve);
    elsewhere.closeAllConnections();
  });
});

const launch = browsers();

const MARKDOWN = [
  '# The Map',
  '*She unrolls it.* "Look **here**," she says, ~~pointing~~ tapping. ((not for the narrator))',
  '',
  '- north',
  '- south',
  '',
  '1. first',
  '2. second',
  '',
  '> An old saying.',
  '',
  '| Stat | Value |',
  '|---|---|',
  '| HP | 10 |',
  '',
  'Some `inline code` and a [chart](https://example.com/chart).',
  '',
  '```',
  'fenced code',
  '```',
  '',
  '---',
  '',
  '<b>bold</b> <i>it</i> <u>under</u> <s>struck</s><br><span style="color: #ff0000">red</span> <font color="blue">blue</font>',
  '<details><summary>Status</summary>Wounded</details>',
].join('\n');

describe('story text, formatted', () => {
  it('renders the markdown and the small HTML subset players use, in replies and in their own lines', async () => {
    pieces = MARKDOWN.split(/(?<=\n)/);
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await message(page).fill(MARKDOWN);
    await message(page).press('Enter');
    await expect.poll(() => lastReply(page).locator('details summary').textContent(), { timeout: 20_000 }).toBe('Status');

    for (const turn of [page.locator('.turn.user').last(), lastReply(page)]) {
      const text = turn.locator('.story-text');
      // A `#` heading sits under the chat's title and the message.
      expect(await text.getByRole('heading', { level: 3 }).textContent()).toBe('The Map');
      expect(await text.locator('em').first().textContent()).toBe('She unrolls it.');
      expect(await text.locator('.speech').textContent()).toBe('"Look here,"');
      expect(await text.locator('.speech strong').textContent()).toBe('here');
      expect(await text.locator('del').textContent()).toBe('pointing');
      expect(await text.locator('.ooc').textContent()).toBe('((not for the narrator))');
      expect(await text.locator('ul li').allTextContents()).toEqual(['north', 'south']);
      expect(await text.locator('ol li').allTextContents()).toEqual(['first', 'second']);
      expect(await text.locator('blockquote').textContent()).toContain('An old saying.');
      expect(await text.locator('table td').allTextContents()).toEqual(['HP', '10']);
      expect(await text.locator('p code').textContent()).toBe('inline code');
      expect(await text.locator('pre code').textContent()).toBe('fenced code\n');
      expect(await text.locator('hr').count()).toBe(1);
      for (const tag of ['b', 'i', 'u', 's']) expect(await text.locator(tag).count(), tag).toBe(1);
      expect(await text.locator('span:text-is("red")').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 0, 0)');
      expect(await text.locator('font').getAttribute('color')).toBe('blue');
      const link = text.getByRole('link', { name: 'chart' });
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
      // No raw mark is left over.
      expect(await text.textContent()).not.toMatch(/\*\*|~~|```|<b>|^#/);
    }
  });

  it('a reply streams in without redrawing what is already on screen', async () => {
    pieces = ['First paragraph, ', 'whole.\n\n', 'Second ', 'one ', 'grows ', 'slowly ', 'here.'];
    pauseMs = 400;
    try {
      const { context } = await launch();
      const { page } = await openStoryChat(context, app.url);
      await message(page).fill('Go on.');
      await message(page).press('Enter');
      // While the second paragraph is arriving, mark the first as it is on screen.
      await expect.poll(() => lastReply(page).locator('.story-text p').count(), { timeout: 20_000 }).toBe(2);
      await lastReply(page).locator('.story-text p').first().evaluate((p) => ((p as HTMLElement & { seen?: boolean }).seen = true));
      await expect.poll(() => lastReply(page).locator('.story-text p').last().textContent(), { timeout: 20_000 }).toContain('slowly');
      expect(await lastReply(page).getAttribute('data-status')).toBe('streaming');
      // The same node: it was not redrawn while the rest streamed in.
      expect(await lastReply(page).locator('.story-text p').first().evaluate((p) => (p as HTMLElement & { seen?: boolean }).seen)).toBe(true);
      await expect.poll(() => lastReply(page).locator('.story-text p').last().textContent(), { timeout: 20_000 }).toBe('Second one grows slowly here.');
    } finally {
      pauseMs = 5;
    }
  });

  it('a chat opened again shows its story as it was, each turn with nodes of its own, asides titled in the language of the app now', async () => {
    pieces = ['Fine.'];
    const same = 'Again *the lantern* swings. ((an aside))';
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url);
    for (let i = 0; i < 2; i++) {
      await message(page).fill(same);
      await message(page).press('Enter');
      await expect.poll(() => page.locator('.turn.user .story-text .ooc').count(), { timeout: 20_000 }).toBe(i + 1);
      await expect.poll(() => lastReply(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('done');
    }
    const lines = page.locator('.turn.user .story-text');
    const shown = async () => lines.evaluateAll((all) => all.slice(-2).map((line) => line.innerHTML));
    const first = await shown();
    expect(first[0]).toBe(first[1]);
    // Opened again in the app (the list, then the chat): its rendered blocks are copies kept from
    // the first showing, and two turns of the same words each get their own.
    const reopen = async () => {
      await page.locator('nav a[href="/chats"]').click();
      await page.locator(`a[href="/chats/${chatId}"]`).click();
      await expect.poll(() => page.locator('.turn.user .story-text .ooc').count(), { timeout: 20_000 }).toBe(2);
    };
    await reopen();
    expect(await shown()).toEqual(first);
    for (const line of await lines.all()) expect(await line.locator('em').textContent()).toBe('the lantern');
    expect(await lines.last().locator('.ooc').getAttribute('title')).toBe('Out of character: never sent to the narrator');

    await page.locator('nav a[href="/settings"]').click();
    await page.getByRole('combobox', { name: 'Language of the app' }).selectOption('es');
    await expect.poll(() => page.locator('html').getAttribute('lang'), { timeout: 15_000 }).toBe('es');
    await reopen();
    expect(await lines.last().locator('.ooc').getAttribute('title')).toBe('Fuera de personaje: nunca se envía al narrador');
  });

  it('hostile markdown and HTML run nothing, load nothing, and cannot dress up as the app or cover it', async () => {
    const hostile = [
      '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><svg onload="window.pwned = 3"></svg>',
      `[click](javascript:window.pwned=4) [data](data:text/html,<script>window.pwned=5</script>) <a href="${there}/ok" onclick="window.pwned=6">there</a>`,
      `![remote](${there}/remote.png) <img src="${there}/img.png" alt="pic"> <video src="${there}/v.mp4" autoplay></video> <audio src="${there}/a.mp3" autoplay></audio>`,
      `<iframe src="${there}/frame"></iframe><object data="${there}/obj"></object><embed src="${there}/embed"><link rel="stylesheet" href="${there}/css"><style>body{display:none}</style>`,
      '<div style="position:fixed;inset:0;z-index:9999;background:red">cover</div>',
      '<span class="composer drawer-toggle" id="chat-title" role="button" aria-label="Send" data-testid="composer" tabindex="0">fake</span>',
      '<form action="/x"><input name="key"><button>Send</button></form>',
      '<span style="color: red; position: fixed; background-image: url(//evil)">styled</span> <span style="color: url(x)">bad colour</span>',
      '<details open ontoggle="window.pwned = 7"><summary>toggle</summary>x</details>',
    ].join('\n\n');
    pieces = [hostile];
    const { context } = await launch();
    const { page } = await openStoryChat(context, app.url);
    await message(page).fill(hostile);
    await message(page).press('Enter');
    await expect.poll(() => lastReply(page).textContent(), { timeout: 20_000 }).toContain('styled');

    for (const turn of [page.locator('.turn.user').last(), lastReply(page)]) {
      const text = turn.locator('.story-text');
      const html = await text.innerHTML();
      expect(html).not.toMatch(/<(script|iframe|object|embed|link|style|form|input|button|svg|video|audio|div)\b/i);
      expect(html).not.toMatch(/\bon[a-z]+=|javascript:|\b(id|role|aria-label|data-testid|tabindex)=/i);
      expect(await text.locator('[class]:not(.speech):not(.ooc)').count()).toBe(0);
      // Nothing covers the app: no element of the text is positioned or reaches past its message.
      const positioned = await text.evaluate((root) => [...root.querySelectorAll('*')].filter((el) => getComputedStyle(el).position !== 'static').length);
      expect(positioned).toBe(0);
      const styled = text.locator('span:text-is("styled")');
      expect(await styled.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundImage])).toEqual(['rgb(255, 0, 0)', 'none']);
      expect(await text.locator('span:text-is("bad colour")').getAttribute('style')).toBeNull();
      // The remote pictures are links, named for where they are, not loaded.
      expect(await text.getByRole('link', { name: /remote: image from 127\.0\.0\.1/ }).count()).toBe(1);
      expect(await text.locator('a:not([href^="http"])').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([null, null]);
    }
    await page.locator('.turn.user').last().locator('summary').click();
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
    // Given time, the other site heard nothing.
    await page.waitForTimeout(1_500);
    expect(asked).toEqual([]);
  });
});
