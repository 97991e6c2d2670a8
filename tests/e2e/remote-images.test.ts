import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsers, message, openStoryChat, startApp } from './harness.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** Another site: a picture and a page, and every request the browser or the relay sent it. */
const asked: { path: string; headers: IncomingHttpHeaders }[] = [];
const elsewhere = createServer((req, res) => {
  asked.push({ path: req.url ?? '', headers: req.headers });
  if (req.url === '/harbour.png') res.writeHead(200, { 'Content-Type': 'image/png', 'Set-Cookie': 'tracked=1' }).end(PNG);
  else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>not a picture</p>');
});
let there = '';
let app: Awaited<ReturnType<typeof startApp>>;

beforeAll(async () => {
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const port = (elsewhere.address() as AddressInfo).port;
  there = `http://127.0.0.1:${port}`;
  // The relay refuses loopback sites; this one stands in for a public site.
  app = await startApp({}, { imageProxy: { allowAddress: (_address, to) => to === port } });
});
afterAll(async () => {
  await app.relay.close();
  await new Promise((resolve) => {
    elsewhere.close(resolve);
    elsewhere.closeAllConnections();
  });
});

const launch = browsers();

describe('remote images', () => {
  it('are links until the player allows them; then they show through the relay, with nothing of the player’s sent; what is not a picture stays a link that says why', async () => {
    const { context } = await launch();
    const { page, chatId } = await openStoryChat(context, app.url);
    await message(page).fill(`Look: ![the harbour](${there}/harbour.png) and ![a page](${there}/page.html)`);
    await message(page).press('Enter');
    const line = page.locator('.turn.user').last().locator('.story-text');
    await expect.poll(() => line.getByRole('link', { name: /the harbour: image from 127\.0\.0\.1/ }).count(), { timeout: 15_000 }).toBe(1);
    await page.waitForTimeout(1_000);
    expect(asked).toEqual([]);

    await page.goto(`${app.url}/settings`);
    await page.getByTestId('look-section').getByLabel('Show remote images').check();
    await page.goto(`${app.url}/chats/${chatId}`);
    const picture = line.locator('img[data-remote]');
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => [img.alt, img.complete && img.naturalWidth, img.src.startsWith('blob:')]), { timeout: 15_000 }).toEqual(['the harbour', 1, true]);
    await expect.poll(() => line.getByRole('link', { name: /a page: image from 127\.0\.0\.1.*could not be loaded: That address is not a picture this app shows \(text\/html\)/ }).count(), { timeout: 15_000 }).toBe(1);
    // The relay asked, not the browser: no cookie, no referrer, no page address, no origin.
    expect(asked.map((a) => a.path).sort()).toEqual(['/harbour.png', '/page.html']);
    for (const { headers } of asked) expect([headers.cookie, headers.referer, headers.origin, headers['user-agent']]).toEqual([undefined, undefined, undefined, 'RoleplayEngine-relay']);

    // Turned off again, the picture is a link at once, in the chat already open.
    const settings = await context.newPage();
    await settings.goto(`${app.url}/settings`);
    await settings.getByTestId('look-section').getByLabel('Show remote images').uncheck();
    await expect.poll(() => line.locator('img[data-remote]').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => line.getByRole('link', { name: /the harbour: image from 127\.0\.0\.1/ }).count(), { timeout: 15_000 }).toBe(1);
  });
});
