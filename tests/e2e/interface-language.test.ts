import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { browsers, freshProfile, openTab, servedApp } from './harness.ts';

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
