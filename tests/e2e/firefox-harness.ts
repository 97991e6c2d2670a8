import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterEach } from 'vitest';
import { findFirefox } from '../firefox-path.mjs';
import { freshProfile, isPolicyViolation } from './harness.ts';

/** The Firefox tests' shared setup: Debian's firefox-esr over WebDriver BiDi (puppeteer-core), never a downloaded build. */
export interface Firefox {
  page: Page;
  /** Another tab of the same browser (same profile, same origin's storage). */
  newTab: () => Promise<Page>;
  /** Every refusal by the app's CSP the page logged: a test expects none unless it provokes one. */
  violations: string[];
}

/** `openFirefox` for this file's tests: each browser opened is closed after its test. */
export function firefoxes(): { openFirefox: (options?: { prefs?: Record<string, unknown> }) => Promise<Firefox> } {
  let browser: Browser | undefined;
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });
  return {
    async openFirefox(options = {}) {
      const executablePath = findFirefox();
      if (!executablePath) throw new Error('Firefox is missing: npm test installs firefox-esr from Debian (tests/ensure-browsers.mjs).');
      // Prefs set a language (intl.accept_languages) or a private window (browser.privatebrowsing.autostart).
      // A call Firefox never answers fails in 60 s, not puppeteer's 180 (see the hostile-corpus test).
      browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true, userDataDir: freshProfile(), extraPrefsFirefox: options.prefs ?? {}, protocolTimeout: 60_000 });
      const opened = browser;
      const page = await opened.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (isPolicyViolation(message.text())) violations.push(message.text());
      });
      // Refusals before the app's own logger starts (its first script) are caught here.
      await page.evaluateOnNewDocument(() => {
        document.addEventListener('securitypolicyviolation', (event) => console.error(`Content-Security-Policy refused ${event.effectiveDirective}: ${event.blockedURI}`));
      });
      return { page, violations, newTab: () => opened.newPage() };
    },
  };
}

/**
 * A step over WebDriver BiDi that must end (an upload, a key press): a call that never answers fails
 * naming the step rather than running into the test's whole timeout with no word of where it stopped.
 */
export async function within<T>(step: Promise<T>, what: string, timeout = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Firefox: ${what} did not end within ${timeout / 1000} s`)), timeout);
  });
  try {
    return await Promise.race([step, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits, polling in the page, for what a player would see; fails naming it. */
export async function waitUntil<A>(page: Page, check: (arg: A) => boolean | Promise<boolean>, what: string, timeout = 30_000, arg?: A): Promise<void> {
  try {
    await page.waitForFunction(check as (arg: unknown) => boolean, { timeout, polling: 100 }, arg);
  } catch {
    throw new Error(`Firefox: ${what} did not happen within ${timeout / 1000} s`);
  }
}

export const databaseReady = (page: Page) =>
  waitUntil(page, () => (globalThis as { roleplayEngine?: { status(): { database: { kind: string } | null } } }).roleplayEngine?.status().database?.kind === 'ready', 'the database opening');

/** Clicks the element `selector` names whose text (or accessible label) is `text`, in the page. */
export async function clickText(page: Page, selector: string, text: string): Promise<void> {
  await waitUntil(
    page,
    ({ selector, text }) => [...document.querySelectorAll<HTMLElement>(selector)].some((el) => (el.textContent?.trim() === text || el.getAttribute('aria-label') === text) && !(el as HTMLButtonElement).disabled),
    `"${text}" to be there`,
    30_000,
    { selector, text },
  );
  await page.evaluate(
    ({ selector, text }) => [...document.querySelectorAll<HTMLElement>(selector)].find((el) => (el.textContent?.trim() === text || el.getAttribute('aria-label') === text) && !(el as HTMLButtonElement).disabled)!.click(),
    { selector, text },
  );
}
