import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browsers, freshProfile, openTab, servedApp } from './harness.ts';
import { englishLeftIn, screens, screenText, seedStory } from './translated-screens.ts';

const app = servedApp();
const launchBrowser = browsers();
let context: BrowserContext | undefined;

describe('the interface in the player\'s language', () => {
  it("speaks the browser's language, can be chosen in Settings, and every tab follows", async () => {
    ({ context } = await launchBrowser(freshProfile(), { locale: 'ja-JP' }));
    const page = await openTab(context, `${app.url}/settings`);
    const nav = page.getByRole('navigation', { name: 'メイン' });
    await expect.poll(() => nav.getByRole('link').allTextContents(), { timeout: 15_000 }).toEqual(['チャット', 'ボット', '設定資料', '設定']);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ja');
    const chooser = page.getByRole('combobox', { name: 'アプリの言語' });
    expect(await chooser.locator('option:checked').textContent()).toBe('ブラウザに合わせる（日本語）');
    await expect.poll(() => page.getByRole('group', { name: 'テーマ' }).getByRole('radio').count(), { timeout: 15_000 }).toBe(4);

    const other = await openTab(context, `${app.url}/chats`);
    await chooser.selectOption('ko');
    await expect.poll(() => page.getByRole('navigation', { name: '주 메뉴' }).getByRole('link').first().textContent(), { timeout: 15_000 }).toBe('채팅');
    // The other tab of this browser follows at once; a reload keeps the choice.
    await expect.poll(() => other.getByRole('navigation', { name: '주 메뉴' }).getByRole('link').first().textContent(), { timeout: 15_000 }).toBe('채팅');
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: '앱 언어' }).inputValue(), { timeout: 15_000 }).toBe('ko');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ko');

    await page.getByRole('combobox', { name: '앱 언어' }).selectOption('auto');
    await expect.poll(() => page.getByRole('navigation', { name: 'メイン' }).getByRole('link').first().textContent(), { timeout: 15_000 }).toBe('チャット');
  });
});

describe('every screen in the player\'s language', () => {
  it('shows no English of the interface in Japanese, then in Korean; story times, counts and dates follow the language', async () => {
    ({ context } = await launchBrowser(freshProfile(), { locale: 'ja-JP' }));
    const page = await openTab(context, `${app.url}/chats`);
    await page.waitForFunction(() => (globalThis as any).roleplayEngine?.status().database?.kind === 'ready', null, { timeout: 15_000 });
    const seeded = await page.evaluate(seedStory);
    const walk = async (language: 'ja' | 'ko') => {
      const left: string[] = [];
      for (const [path, ready] of screens(seeded)) {
        await page.goto(`${app.url}${path}`);
        await page.locator(ready).first().waitFor({ timeout: 15_000 });
        left.push(...englishLeftIn(await page.evaluate(screenText), language).map((found) => `${path} ${found}`));
      }
      return left;
    };
    expect(await walk('ja')).toEqual([]);

    // The chat in Japanese: the story's times by Intl, counts by the language's rules, bodies told to find their own direction.
    await page.goto(`${app.url}/chats/${seeded.chatId}`);
    const drawer = page.getByTestId('story-drawer');
    await expect.poll(() => drawer.getByTestId('drawer-time').textContent(), { timeout: 15_000 }).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/);
    await expect.poll(() => drawer.getByTestId('thread').first().textContent(), { timeout: 15_000 }).toMatch(/^約束 · /);
    expect(await page.locator('.turn .story-text').first().getAttribute('dir')).toBe('auto');
    await page.goto(`${app.url}/deleted`);
    await expect.poll(() => page.locator('.deleted-card').first().textContent(), { timeout: 15_000 }).toMatch(/\d{4}年\d{1,2}月\d{1,2}日に完全に削除/);

    await page.evaluate(() => localStorage.setItem('roleplay-engine/ui-language', 'ko'));
    expect(await walk('ko')).toEqual([]);
    await page.goto(`${app.url}/chats`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent(), { timeout: 15_000 }).toBe('채팅');
  });
});
