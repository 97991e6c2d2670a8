import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { HOSTILE_DIR, type CorpusEntry } from '../fixtures/hostile/make-corpus.ts';
import { databaseReady, firefoxes, waitUntil, within } from './firefox-harness.ts';
import { freshProfile, servedApp } from './harness.ts';

/**
 * The security layers in Firefox (Debian's firefox-esr, over WebDriver BiDi): the app runs under its
 * CSP and Trusted Types with no refusal, another site cannot frame it, every file of the hostile
 * corpus is previewed or refused as a card, and a hostile card's notes load nothing.
 */
const app = servedApp();
const { openFirefox } = firefoxes();

async function importCardFile(page: Page, path: string): Promise<'previewed' | string> {
  const input = await page.waitForSelector('input[type=file][accept*=".charx"]', { timeout: 15_000 });
  await within(input!.uploadFile(path), `the upload of ${path}`);
  await waitUntil(page, () => Boolean(document.querySelector('dialog[open] [data-testid=card-preview], dialog[open] [role=alert]')), `an answer to ${path}`, 15_000);
  const answer = await within(
    page.evaluate(() => (document.querySelector('dialog[open] [data-testid=card-preview]') ? 'previewed' : (document.querySelector('dialog[open] [role=alert]')?.textContent ?? ''))),
    `reading the answer to ${path}`,
  );
  await within(page.keyboard.press('Escape'), `closing the answer to ${path}`);
  await waitUntil(page, () => !document.querySelector('dialog[open]'), 'the dialog closing', 15_000);
  return answer;
}

describe('Firefox', () => {
  it('runs the app under its policy with Trusted Types: a story played, the pages shown, no refusal', async () => {
    const { page, violations } = await openFirefox();
    await page.goto(`${app.url}/`);
    await databaseReady(page);
    expect(await page.evaluate(() => typeof (globalThis as { trustedTypes?: unknown }).trustedTypes)).toBe('object');
    const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: 'Old friends.' }, new Date(2026, 0, 1, 20));
    const chatId = await page.evaluate(async (kickoff) => {
      const engine = (globalThis as any).roleplayEngine.engine;
      await engine.saveYou({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.' });
      const botId = await engine.saveBot(
        { name: 'Mira', persona: 'A wry captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: 'Old friends.', kickoff: 'The storm breaks.' },
        null,
      );
      return engine.startChat(botId, kickoff) as Promise<string>;
    }, kickoff);
    await page.goto(`${app.url}/chats/${chatId}`);
    await databaseReady(page);
    await waitUntil(page, () => Boolean(document.querySelector('textarea[aria-label="Message"], textarea')), 'the composer');
    const repliesBefore = await page.evaluate(() => document.querySelectorAll('.turn.assistant').length);
    await page.type('textarea', '*waves* "**Hello**, captain." ~~No.~~ ((brb))');
    await page.keyboard.press('Enter');
    // The reply comes through the database worker, which runs under the same policy.
    await page.waitForFunction(
      (before) => {
        const replies = document.querySelectorAll('.turn.assistant');
        return replies.length > before && (replies[replies.length - 1]!.querySelector('.story-text')?.textContent?.trim().length ?? 0) > 20;
      },
      { timeout: 30_000, polling: 100 },
      repliesBefore,
    );
    // The player's line in its markdown; the reply's actions in their menu, closed by Esc onto its button.
    const marks = await page.evaluate(() => {
      const mine = [...document.querySelectorAll('.turn.user .story-text')].at(-1)!;
      return [mine.querySelector('em')?.textContent, mine.querySelector('.speech strong')?.textContent, mine.querySelector('del')?.textContent, mine.querySelector('.ooc')?.textContent];
    });
    expect(marks).toEqual(['waves', 'Hello', 'No.', '((brb))']);
    await waitUntil(page, () => document.querySelectorAll('.turn.assistant[data-status="done"]').length >= 2, 'the reply finishing');
    await page.evaluate(() => ([...document.querySelectorAll<HTMLButtonElement>('.turn.assistant button[aria-label="Message actions"]')].at(-1)!).click());
    await waitUntil(page, () => document.querySelectorAll('[role=menu] [role=menuitem]').length > 0, 'the message actions menu');
    const offered = await page.evaluate(() => [...document.querySelectorAll('[role=menu] [role=menuitem]')].map((item) => item.firstElementChild?.textContent));
    expect(offered).toEqual(['Copy', 'Edit', 'Regenerate', 'Continue', 'Why this reply?', 'Branch from here', 'Delete']);
    await page.keyboard.press('Escape');
    await waitUntil(page, () => !document.querySelector('[role=menu]') && document.activeElement?.getAttribute('aria-label') === 'Message actions', 'the menu closing onto its button');
    // A theme chosen holds in Firefox too.
    await page.evaluate(() => localStorage.setItem('roleplay-engine/look', JSON.stringify({ theme: 'paper' })));
    await page.reload();
    await databaseReady(page);
    expect(await page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).colorScheme])).toEqual(['paper', 'light']);
    for (const path of ['/bots', '/lore', '/settings', '/search']) {
      await page.goto(`${app.url}${path}`);
      await databaseReady(page);
    }
    expect(violations).toEqual([]);
    // The check is not deaf: a request to another origin is refused, and heard.
    expect(await page.evaluate(() => fetch('http://127.0.0.2:1/').then(() => 'fetched', () => 'refused'))).toBe('refused');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(violations.join('\n')).toMatch(/connect-src|default-src/);
  });

  it('another site cannot frame the app', async () => {
    const framing = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><iframe src="${app.url}/settings"></iframe>`));
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    try {
      const { page } = await openFirefox();
      const calls = app.logs.length;
      await page.goto(`http://127.0.0.1:${(framing.address() as AddressInfo).port}/`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const frame = page.frames().find((f) => f !== page.mainFrame());
      const appInside = frame ? await frame.evaluate(() => Boolean(document.getElementById('root'))).catch(() => false) : false;
      expect(appInside).toBe(false);
      expect(app.logs.slice(calls).filter((line) => /\/api\//.test(line))).toEqual([]);
    } finally {
      await new Promise((resolve) => {
        framing.close(resolve);
        framing.closeAllConnections();
      });
    }
  });

  // 91 files, each uploaded, answered and closed: 22 s, alone or beside a CPU-bound run. Twice, deep
  // in a full run, the engine call reading the log after the corpus never answered (a CI run at
  // 120 s; a full run here at 201 s, puppeteer's 180-s protocol timeout). Never reproduced alone.
  // Each step now fails by name within 60 s, and the test is tried once more before it fails.
  it('previews or refuses every file of the hostile corpus as a card, writing nothing; hostile notes load nothing', { timeout: 300_000, retry: 1 }, async () => {
    const manifest = JSON.parse(readFileSync(join(HOSTILE_DIR, 'manifest.json'), 'utf8')) as Record<string, CorpusEntry>;
    const asked: string[] = [];
    const elsewhere = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const there = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    try {
      const { page, violations } = await openFirefox();
      await page.goto(`${app.url}/bots`);
      await databaseReady(page);
      const events = () => within(page.evaluate(async () => (await (globalThis as any).roleplayEngine.engine.exportLog()).events.length as number), "reading the log's events", 60_000);
      const before = await events();
      const outcomes: string[] = [];
      for (const [name, entry] of Object.entries(manifest)) {
        const answer = await importCardFile(page, join(HOSTILE_DIR, name));
        const previewed = answer === 'previewed';
        if (previewed !== (entry.accepts.includes('card') || Boolean(entry.needsPlayer))) outcomes.push(`${name}: ${previewed ? 'previewed' : `refused (${answer})`}, expected otherwise`);
        if (!previewed && (answer.trim().length < 10 || /undefined|\[object|too much recursion|Maximum call stack/.test(answer))) outcomes.push(`${name}: unclear refusal "${answer}"`);
      }
      expect(outcomes).toEqual([]);
      expect(await events()).toBe(before);

      // A card whose notes ask for pictures and sounds from elsewhere, imported and shown.
      const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Quill', description: 'A scribe.', first_mes: 'Hello.', creator_notes: `<p>Notes.</p><img src="${there}/p.png"><video poster="${there}/v.png"></video><audio src="${there}/a.mp3"></audio><svg><image href="${there}/s.png"/></svg>` } };
      const path = join(freshProfile(), 'quill.json');
      writeFileSync(path, JSON.stringify(card));
      const input = await page.waitForSelector('input[type=file][accept*=".charx"]', { timeout: 15_000 });
      await input!.uploadFile(path);
      await waitUntil(page, () => Boolean(document.querySelector('dialog[open] [data-testid=card-preview]')), 'the preview', 15_000);
      await page.evaluate(() => [...document.querySelectorAll<HTMLButtonElement>('dialog[open] button')].find((b) => b.textContent?.trim() === 'Import')!.click());
      await waitUntil(page, () => Boolean([...document.querySelectorAll('a')].find((a) => a.textContent === 'Edit Quill' || a.getAttribute('aria-label') === 'Edit Quill')), 'the imported bot');
      await page.evaluate(() => ([...document.querySelectorAll('a')].find((a) => a.textContent === 'Edit Quill' || a.getAttribute('aria-label') === 'Edit Quill') as HTMLAnchorElement).click());
      await waitUntil(page, () => document.querySelector('[data-testid=creator-notes]')?.textContent?.includes('Notes.') === true, 'the notes');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(asked).toEqual([]);
      expect(violations).toEqual([]);
    } finally {
      await new Promise((resolve) => {
        elsewhere.close(resolve);
        elsewhere.closeAllConnections();
      });
    }
  });
});
