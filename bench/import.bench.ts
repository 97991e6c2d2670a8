import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BrowserContext } from 'playwright-core';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { freshProfile, launchBrowser, openTab, startApp } from '../tests/e2e/harness.ts';
import { fmt, median, printTable } from './table.ts';

const MESSAGES = 10_000;
const LINE = 'The storm broke over the harbour while Mira held the lantern high and laughed at the thunder. ';

/** A SillyTavern chat of `count` messages, a few hundred characters each, one reply in ten with three swipes. */
export function sillyTavernChat(count: number): string {
  const lines = [JSON.stringify({ user_name: 'Ada', character_name: 'Mira', create_date: '2024-2-1@10h00m00s', chat_metadata: {} })];
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 1;
    const mes = `${i}: ${LINE.repeat(user ? 1 : 4)}`;
    const swipes = !user && i % 20 === 0 ? { swipes: [mes, `${mes} Again.`, `${mes} Once more.`], swipe_id: 1 } : {};
    lines.push(JSON.stringify({ name: user ? 'Ada' : 'Mira', is_user: user, is_system: false, send_date: 'February 1, 2024 10:05am', mes, extra: {}, ...swipes }));
  }
  return `${lines.join('\n')}\n`;
}

/** Importing a 10,000-message SillyTavern chat: the engine in Node, and the whole path in Chromium (target ≤ 5 s). */
export async function benchImport(): Promise<void> {
  const text = sillyTavernChat(MESSAGES);
  const nodeTimes: number[] = [];
  for (let run = 0; run < 3; run++) {
    const { engine } = await openTestEngine({ now: Date.now });
    const bot = engine.newId();
    engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
    const t = performance.now();
    engine.importChat({ text, botId: bot, title: 'Bench', progressId: 'bench' });
    nodeTimes.push(performance.now() - t);
  }

  const path = join(freshProfile(), 'Mira - bench.jsonl');
  writeFileSync(path, text);
  const app = await startApp();
  let context: BrowserContext | undefined;
  const browserTimes: number[] = [];
  let steps = 0;
  try {
    ({ context } = await launchBrowser());
    const page = await openTab(context, `${app.url}/`);
    await page.evaluate(async () => {
      const engine = (globalThis as any).roleplayEngine.engine;
      await engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
      await engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'On deck.' }, null);
    });
    for (let run = 0; run < 3; run++) {
      await page.goto(`${app.url}/`);
      await page.locator('label:has-text("Import chat") input[type=file]').setInputFiles(path);
      await page.getByTestId('chat-preview').waitFor();
      await page.evaluate(() => {
        (globalThis as any).progressSteps = 0;
        new MutationObserver((records) => ((globalThis as any).progressSteps += records.filter((r) => r.target instanceof HTMLProgressElement).length)).observe(document.body, {
          subtree: true,
          attributes: true,
          attributeFilter: ['value'],
        });
      });
      const t = performance.now();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.waitForURL(/\/chats\/[^/?]+$/, { timeout: 60_000 });
      await page.locator('.turn.assistant .story-text').last().waitFor();
      browserTimes.push(performance.now() - t);
      steps = (await page.evaluate(() => (globalThis as any).progressSteps)) as number;
    }
  } finally {
    await context?.close();
    await app.relay.close();
  }
  printTable('Importing a SillyTavern chat (10,000 messages, 2.6 MB, one reply in ten with 3 swipes)', [
    ['engine in Node: median of 3 (one transaction)', `${fmt(median(nodeTimes))} ms`],
    ['Chromium, Import clicked → chat painted: median of 3 (target ≤ 5 s)', `${fmt(median(browserTimes))} ms (runs: ${browserTimes.map((t) => fmt(t)).join(', ')})`],
    ['progress bar updates seen in the last run', fmt(steps)],
  ]);
}
