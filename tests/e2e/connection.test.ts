import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { json, startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.ts';
import { scratchDir } from '../support/scratch.ts';
import { exportLog, launchBrowser, openTab, startApp, storyReady } from './harness.ts';

const KEY = 'fl_pasted_in_the_app_5555QRST';
let app: Awaited<ReturnType<typeof startApp>>;
let upstream: FakeUpstream;
let file: string;
let context: BrowserContext | undefined;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  const models = [{ id: 'acme/Storyteller-24B' }, { id: 'acme/Mixtral-8x7B-Instruct' }, { id: 'acme/tiny' }];
  upstream.setFallback((req, res) => {
    if (req.path === '/v1/models') return json(res, 200, { object: 'list', data: models });
    if (req.path === '/v1/plan') return json(res, 404, { error: 'none' });
    return json(res, 200, { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }] });
  });
  file = join(scratchDir('app-conn-'), 'connection.json');
  app = await startApp({ RELAY_CONNECTION_FILE: file });
});
afterAll(async () => {
  await app.relay.close();
  await upstream.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

describe('the connection, in the app', () => {
  it('a server and key set in Settings take effect without a restart; the page then knows only the last four; Test lists the models with sizes; Remove goes back to the demo', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await storyReady(page);
    await page.goto(`${app.url}/settings`);
    const state = page.getByTestId('connection-state');
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toContain('built-in demo model');
    await expect.poll(() => page.locator('[data-banner="demo"]').textContent(), { timeout: 15_000 }).toContain('Settings → Connection');

    await page.getByLabel('Another OpenAI-compatible server').check();
    await page.getByLabel('Server address').fill(upstream.url);
    await page.getByLabel(/API key/).fill(KEY);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe(`${upstream.url}: key set (…QRST).`);
    await expect.poll(() => page.locator('[data-banner="demo"]').count(), { timeout: 15_000 }).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await page.getByLabel(/API key/).count()).toBe(0);

    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByTestId('connection-message').textContent(), { timeout: 15_000 }).toBe('Connected: 3 models available.');
    expect(await page.getByRole('list', { name: 'Available models' }).locator('li').allTextContents()).toEqual([
      'acme/Storyteller-24B · 24B',
      'acme/Mixtral-8x7B-Instruct · 8x7B',
      'acme/tiny',
    ]);
    const options = await page.locator('#relay-models option').evaluateAll((list) => list.map((o) => (o as HTMLOptionElement).label));
    expect(options).toContain('acme/Storyteller-24B · 24B');

    // Sampling: a global knob in Settings, this chat's own in its drawer; the next reply goes to
    // that server, with that key and those knobs.
    await page.getByLabel('Min-p').fill('0.07');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByText('Settings saved.').isVisible(), { timeout: 15_000 }).toBe(true);
    const chats = await page.evaluate(() => (globalThis as any).roleplayEngine.engine.listChats());
    await page.evaluate(() => localStorage.setItem('roleplay-engine/drawer', 'open'));
    await page.goto(`${app.url}/chats/${chats[0].id}`);
    const sampling = page.getByRole('form', { name: 'Sampling for this chat' });
    await page.getByText('Sampling for this chat').click();
    expect(await sampling.getByLabel('Temperature').getAttribute('placeholder')).toBe('0.9');
    await sampling.getByLabel('Temperature').fill('1.25');
    await sampling.getByLabel('Max reply tokens').fill('300');
    await sampling.getByRole('button', { name: 'Save sampling' }).click();
    await expect.poll(() => page.getByText('Sampling for this chat (its own)').isVisible(), { timeout: 15_000 }).toBe(true);
    await page.getByRole('textbox', { name: 'Message' }).fill('"Hello?"');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect.poll(() => upstream.completions().length, { timeout: 15_000 }).toBeGreaterThan(0);
    const sent = upstream.completions()[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ temperature: 1.25, max_tokens: 300, min_p: 0.07, top_p: 1, repetition_penalty: 1 });
    await expect.poll(() => page.locator('.turn.assistant').last().getAttribute('data-status'), { timeout: 15_000 }).not.toBe('streaming');
    await page.goto(`${app.url}/settings`);

    // Nothing the browser holds has the key.
    const held = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, html: document.documentElement.outerHTML }));
    expect(held).not.toContain(KEY);
    expect(JSON.stringify(await exportLog(page))).not.toContain(KEY);

    await page.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toContain('built-in demo model');
    await expect.poll(() => page.locator('[data-banner="demo"]').count(), { timeout: 15_000 }).toBe(1);
  });

  it('a refused key says why, beside the form, and nothing changes', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/settings`);
    await page.getByLabel(/API key/).fill('not a key');
    await page.getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(() => page.getByTestId('connection-message').textContent(), { timeout: 15_000 }).toMatch(/does not look like an API key/);
    expect(await page.getByTestId('connection-state').textContent()).toContain('built-in demo model');
  });

  it('after another server without a key, the built-in demo model can be chosen again', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/settings`);
    const state = page.getByTestId('connection-state');
    await page.getByLabel('Another OpenAI-compatible server').check();
    await page.getByLabel('Server address').fill(upstream.url);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe(`${upstream.url}: no key needed.`);
    await expect.poll(() => page.locator('[data-banner="demo"]').count(), { timeout: 15_000 }).toBe(0);

    await page.getByLabel(/built-in demo model/).check();
    expect(await page.getByLabel(/API key/).count()).toBe(0);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toContain('built-in demo model');
    await expect.poll(() => page.locator('[data-banner="demo"]').count(), { timeout: 15_000 }).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByLabel(/built-in demo model/).isChecked(), { timeout: 15_000 }).toBe(true);
    // As the relay started: for the tests after this one.
    await page.evaluate(() => fetch('/api/connection', { method: 'DELETE' }));
  });
});

describe('the connection, when the relay cannot answer', () => {
  it('Settings stays readable and says so; no page error', async () => {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.route('**/api/connection', (route) => route.abort('connectionreset'));
    await page.goto(`${app.url}/settings`);
    await expect.poll(() => page.getByText(/The relay's connection cannot be read/).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByRole('heading', { name: 'Storage and backup' }).isVisible()).toBe(true);
    await page.waitForTimeout(300);
    expect(errors).toEqual([]);
  });
});
