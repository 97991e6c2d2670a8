import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { defaultKickoff } from '../src/engine/kickoff/schema.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import type { Backup } from '../src/engine/log/backup.ts';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { TEST_KEY } from '../tests/support/relay-harness.ts';
import { json, sseChunk, startFakeUpstream, startSse } from '../tests/support/fake-upstream.ts';
import { launchBrowser, openTab, startApp, waitForDatabase } from '../tests/e2e/harness.ts';
import { demoReply } from '../relay/demo-model.ts';
import type { CompletionRequest } from '../relay/request-body.ts';
import { fmt, median, printTable } from './table.ts';

const LONG_CHAT_TURNS = 10_000;
const UPSTREAM_FIRST_TOKEN_MS = 150;
/** Between the reply's later tokens: a model writing about 50 tokens a second. */
const TOKEN_GAP_MS = Number(process.env.BENCH_TOKEN_GAP_MS ?? 20);
const SENDS = Number(process.env.BENCH_SENDS ?? 20);

/** A line of the bench story's replies, which repeat it one to five times. */
export const STORY_LINE = 'The storm broke over the harbour while Mira held the lantern high and laughed at the thunder. ';

/**
 * The bench's story as a backup made in Node: a long chat of `turns` turns and a new one of two.
 * `analysed`: each reply followed by what its analysis writes in play (a feeling with a fact the
 * bot learned, and a memory of the moment), caused by the reply, as a model's analysis would.
 */
export async function benchStoryBackup(turns: number, { analysed = false } = {}): Promise<{ backup: Backup; longChat: string; newChat: string; textBytes: number }> {
  // A minute of real time per event from 1 January 2025: 10,000 turns span about 10 days, so a
  // jump to a date of real time has days to choose from.
  let now = Date.UTC(2025, 0, 1);
  const { engine } = await openTestEngine({ now: () => (now += 60_000) });
  const kickoff = defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 1, 20));
  engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
  const botId = engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null);
  let textBytes = 0;
  const fill = (chatId: string, count: number) => {
    for (let i = 0; i < count; i += 500) {
      const drafts: EventDraft[] = [];
      for (let j = i; j < Math.min(count, i + 500); j += 2) {
        const turnId = engine.newId();
        // Turns of varied length, as a player's and a model's are: replies of one to five lines (three
        // on average, ~285 bytes), the player's of one to four clauses. Turns all of one length fell
        // into the log's 1 KiB pages in one pattern, which hid or magnified what a row's size changed.
        const line = STORY_LINE.repeat(1 + ((j * 7) % 5));
        const said = `"Turn ${j}," I say, ${'and look at the sea '.repeat(j % 4)}then wait.`;
        textBytes += Buffer.byteLength(said) + Buffer.byteLength(line);
        drafts.push(draft.userTurn(chatId, engine.newId(), said), draft.assistantStarted(chatId, turnId, botId), draft.assistantTurn(chatId, turnId, botId, line));
        if (analysed) {
          const reply = drafts.length - 1;
          const when = new Date(Date.UTC(2026, 0, 1, 20) + j * 60_000).toISOString().slice(0, 19);
          drafts.push(
            { ...draft.edge(chatId, botId, 'you', { affinityDelta: 1, facts: [`Ada waited by the sea on turn ${j}`], lastInteraction: when }), causeDraft: reply },
            { ...draft.memory(chatId, engine.newId(), botId, { summary: `On turn ${j} Ada said she would wait, and Mira held the lantern high as the storm broke.`, fictionTime: when }), causeDraft: reply },
          );
        }
      }
      engine.append(drafts);
    }
  };
  const longChat = engine.startChat(botId, kickoff);
  fill(longChat, turns);
  // A second version of the long chat's latest reply, so the page has ‹ 1/2 › to flip.
  const again = engine.turns.regenerate(longChat);
  engine.turns.finishTurn(again, { text: 'Another way the last reply could have gone.', usage: null, truncated: false, reason: null, error: null });
  const newChat = engine.startChat(botId, kickoff);
  fill(newChat, 2);
  return { backup: engine.exportLog(), longChat, newChat, textBytes };
}

/**
 * A long story and a new one, restored into the page's empty database from a backup made in Node:
 * the same path a user's restore takes. Returns the two chat ids.
 */
export async function restoreStories(page: Page, turns: number): Promise<{ longChat: string; newChat: string; textBytes: number }> {
  const { backup, longChat, newChat, textBytes } = await benchStoryBackup(turns);
  await page.evaluate((backup) => (globalThis as any).roleplayEngine.engine.importLog(backup), backup);
  return { longChat, newChat, textBytes };
}

/** From a click in the chat list to the transcript painted: measured inside the page. */
export async function openFromList(page: Page, baseUrl: string, chatId: string, { lookFirstMs = 0 } = {}): Promise<number> {
  await page.goto(`${baseUrl}/chats`);
  await page.locator(`a[href="/chats/${chatId}"]`).waitFor();
  // The list paints before the database has opened (the list the leader keeps): an open is timed
  // from a list whose database is ready, as a player's click comes after that; `lookFirstMs` is the
  // moment a player looks at the list before choosing (the top chats' first pages are read then).
  await waitForDatabase(page);
  if (lookFirstMs) await page.waitForTimeout(lookFirstMs);
  return page.evaluate(async (chatId) => {
    const link = document.querySelector<HTMLAnchorElement>(`a[href="/chats/${chatId}"]`)!;
    const start = performance.now();
    link.click();
    // The last message in the page and the message box there to type in.
    await new Promise<void>((resolve) => {
      const check = () => (document.querySelector('.turn') && document.querySelector('textarea[aria-label="Message"]') ? resolve() : requestAnimationFrame(check));
      check();
    });
    await new Promise((r) => requestAnimationFrame(() => r(null))); // the frame that shows it
    return performance.now() - start;
  }, chatId);
}

export async function benchChat(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
  }
  const upstream = await startFakeUpstream();
  const upstreamFirstToken: number[] = [];
  /** Wall-clock instants (same machine) the upstream got each request and wrote its first token. */
  const upstreamTimes: { received: number; first: number }[] = [];
  upstream.setFallback(async (req, res) => {
    if (!req.path.endsWith('/chat/completions')) return json(res, 200, { data: [] });
    const body = req.body as CompletionRequest;
    // The background analysis after each reply: JSON as the demo model writes it, after a pause.
    if (!body.stream) {
      await new Promise((r) => setTimeout(r, UPSTREAM_FIRST_TOKEN_MS));
      return json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: demoReply(body) }, finish_reason: 'stop' }] });
    }
    const received = Date.now();
    await new Promise((r) => setTimeout(r, UPSTREAM_FIRST_TOKEN_MS));
    startSse(res);
    res.write(sseChunk('First'));
    upstreamFirstToken.push(Date.now() - received);
    upstreamTimes.push({ received, first: Date.now() });
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, TOKEN_GAP_MS));
      res.write(sseChunk(` w${i}`));
    }
    res.end('data: [DONE]\n\n');
  });
  const app = await startApp({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
  let context: BrowserContext | undefined;
  try {
    ({ context } = await launchBrowser());
    await context.addInitScript('globalThis.__name = (f) => f');
    const page = await openTab(context, `${app.url}/chats`);
    const created = performance.now();
    const { longChat, newChat } = await restoreStories(page, LONG_CHAT_TURNS);
    const fillSeconds = (performance.now() - created) / 1000;
    const open = { long: [] as number[], fresh: [] as number[] };
    for (let i = 0; i < 7; i++) {
      open.long.push(await openFromList(page, app.url, longChat));
      open.fresh.push(await openFromList(page, app.url, newChat));
    }

    // Steering the long chat: flip the latest reply's versions, rewind three exchanges, undo.
    await page.goto(`${app.url}/chats/${longChat}`);
    await page.getByTestId('version').waitFor();
    const flips: number[] = [];
    for (let i = 0; i < 7; i++) {
      flips.push(
        await page.evaluate(async () => {
          const label = () => document.querySelector('[data-testid="version"]')?.textContent ?? '';
          const before = label();
          const button = document.querySelector<HTMLButtonElement>(before.startsWith('2') ? 'button[aria-label="Previous version"]' : 'button[aria-label="Next version"]')!;
          const start = performance.now();
          button.click();
          await new Promise<void>((resolve) => {
            const check = () => (label() && label() !== before ? resolve() : requestAnimationFrame(check));
            check();
          });
          await new Promise((r) => requestAnimationFrame(() => r(null)));
          return performance.now() - start;
        }),
      );
    }
    const rewinds: number[] = [];
    const undos: number[] = [];
    for (let i = 0; i < 5; i++) {
      const turns = page.locator('.turn');
      const target = turns.nth((await turns.count()) - 7);
      await target.getByRole('button', { name: 'Message actions' }).click();
      await page.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem', { name: 'Rewind to here', exact: true }).click();
      const confirm = page.getByRole('dialog').getByRole('button', { name: 'Rewind', exact: true });
      await page.waitForFunction(() => !document.querySelector('dialog button.danger')?.hasAttribute('disabled'));
      await confirm.waitFor();
      const untilStub = (present: boolean) =>
        page.evaluate(async (present) => {
          const start = performance.now();
          const button = present ? document.querySelector<HTMLButtonElement>('dialog button.danger')! : document.querySelector<HTMLButtonElement>('[data-testid="rewind-toast"] button')!;
          button.click();
          await new Promise<void>((resolve) => {
            const check = () => (Boolean(document.querySelector('[data-testid="rewound-stub"]')) === present ? resolve() : requestAnimationFrame(check));
            check();
          });
          await new Promise((r) => requestAnimationFrame(() => r(null)));
          return performance.now() - start;
        }, present);
      rewinds.push(await untilStub(true));
      undos.push(await untilStub(false));
    }

    // Branch the long chat from its third-last turn: click -> the branch's transcript painted.
    const branches: number[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto(`${app.url}/chats/${longChat}`);
      await page.getByTestId('version').waitFor();
      const turns = page.locator('.turn');
      const target = turns.nth((await turns.count()) - 3);
      // The menu opened first (not timed): the click on its item is what is measured.
      await target.getByRole('button', { name: 'Message actions' }).click();
      branches.push(
        await page.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem', { name: 'Branch from here', exact: true }).evaluate(async (button) => {
          const from = location.pathname;
          const start = performance.now();
          (button as HTMLButtonElement).click();
          await new Promise<void>((resolve) => {
            const check = () =>
              location.pathname !== from && document.querySelector('#chat-title')?.textContent?.endsWith('(branch)') && document.querySelectorAll('.turn').length > 2
                ? resolve()
                : requestAnimationFrame(check);
            check();
          });
          await new Promise((r) => requestAnimationFrame(() => r(null)));
          return performance.now() - start;
        }),
      );
    }

    // Send -> first token on screen, minus what the upstream itself took to its first token.
    await page.goto(`${app.url}/chats/${newChat}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const overheads: number[] = [];
    const toUpstream: number[] = [];
    const toScreen: number[] = [];
    for (let i = 0; i < SENDS; i++) {
      const before = upstreamFirstToken.length;
      const onScreen = await page.evaluate(async (i) => {
        const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')!;
        box.value = `"Line ${i}"`;
        box.dispatchEvent(new Event('input', { bubbles: true }));
        // This Send's reply, not the one before it (the page shows the latest turns only, so counting them fails).
        const lastReply = () => [...document.querySelectorAll<HTMLElement>('.turn.assistant')].at(-1);
        const before = lastReply()?.dataset.turnId;
        const seen = new Promise<number>((resolve) => {
          const check = () => {
            const reply = lastReply();
            if (reply && reply.dataset.turnId !== before && reply.querySelector('.story-text')?.textContent?.includes('First')) {
              (globalThis as any).seenAt = Date.now();
              resolve(performance.now());
            }
            else requestAnimationFrame(check);
          };
          check();
        });
        const start = performance.now();
        (globalThis as any).sentAt = Date.now();
        box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        return (await seen) - start;
      }, i);
      await page.waitForFunction(() => !document.querySelector('.turn[data-status="streaming"]'));
      if (upstreamFirstToken.length === before + 1) {
        overheads.push(onScreen - upstreamFirstToken.at(-1)!);
        const { sentAt, seenAt } = (await page.evaluate(() => ({ sentAt: (globalThis as any).sentAt, seenAt: (globalThis as any).seenAt }))) as { sentAt: number; seenAt: number };
        const upstream = upstreamTimes.at(-1)!;
        toUpstream.push(upstream.received - sentAt);
        toScreen.push(seenAt - upstream.first);
      }
      // A player reads the reply before writing the next line; the analysis finishes meanwhile.
      await page.waitForFunction(() => !document.querySelector('[data-testid="updating-memories"]'));
    }
    printTable('Chat (Debian Chromium, headless, OPFS, production build, fake upstream)', [
      [`restoring a chat of ${LONG_CHAT_TURNS.toLocaleString("en-US")} turns (setup: built in Node, imported in the page)`, `${fmt(fillSeconds, 1)} s`],
      [`open a chat of ${LONG_CHAT_TURNS.toLocaleString('en-US')} turns: click -> transcript painted, median / max`, `${fmt(median(open.long), 1)} / ${fmt(Math.max(...open.long), 1)} ms`],
      ['open a new chat (2 turns): click -> transcript painted, median / max', `${fmt(median(open.fresh), 1)} / ${fmt(Math.max(...open.fresh), 1)} ms`],
      [`Send -> first token on screen, minus upstream first-token time (${UPSTREAM_FIRST_TOKEN_MS} ms), median / max`, `${fmt(median(overheads), 1)} / ${fmt(Math.max(...overheads), 1)} ms`],
      ['  of which Send -> request at the upstream (write, prompt, relay), median / max', `${fmt(median(toUpstream), 1)} / ${fmt(Math.max(...toUpstream), 1)} ms`],
      ['  and first token written upstream -> on screen (relay, worker, tab), median / max', `${fmt(median(toScreen), 1)} / ${fmt(Math.max(...toScreen), 1)} ms`],
      [`flip the latest reply's version in the ${LONG_CHAT_TURNS.toLocaleString('en-US')}-turn chat: click -> screen, median / max`, `${fmt(median(flips), 1)} / ${fmt(Math.max(...flips), 1)} ms`],
      ['rewind three exchanges there: click Rewind -> stub on screen, median / max', `${fmt(median(rewinds), 1)} / ${fmt(Math.max(...rewinds), 1)} ms`],
      ['undo that rewind: click Undo -> story back on screen, median / max', `${fmt(median(undos), 1)} / ${fmt(Math.max(...undos), 1)} ms`],
      ['branch it from the third-last turn: click -> branch painted, median / max', `${fmt(median(branches), 1)} / ${fmt(Math.max(...branches), 1)} ms`],
    ]);
  } finally {
    await context?.close();
    await app.relay.close();
    await upstream.close();
  }
}
