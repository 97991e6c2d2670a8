import { performance } from 'node:perf_hooks';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { loadTokenCounter } from '../src/engine/turn/tokens.ts';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { fmt, median, printTable } from './table.ts';

const WORDS = 'the storm broke over the harbour while Mira held the lantern high and laughed at the thunder'.split(' ');

/** Prompt assembly for a long chat, at the full narrator budget (hard 8000, soft 6000). */
export async function benchPrompt(): Promise<void> {
  const { engine } = await openTestEngine({ now: Date.now });
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { voiceSamples: ['"Hold fast."', '"The sea does not wait."'], backstory: WORDS.join(' ').repeat(4) }), draft.chat(chat, bot)]);
  const say = (n: number, i: number) => Array.from({ length: n }, (_, k) => WORDS[(i + k) % WORDS.length]).join(' ');
  for (let i = 0; i < 300; i += 50) {
    const drafts: EventDraft[] = [];
    for (let j = i; j < i + 50; j++) {
      const turnId = engine.newId();
      drafts.push(draft.userTurn(chat, engine.newId(), `"${say(25, j)}" *${say(10, j + 3)}*`));
      drafts.push(draft.assistantStarted(chat, turnId, bot));
      drafts.push(draft.assistantTurn(chat, turnId, bot, say(140, j)));
    }
    engine.append(drafts);
  }
  const count = await loadTokenCounter();
  const started = engine.turns.beginTurn(chat, '"Where are we headed?"');
  const times: number[] = [];
  let prompt = engine.narratorPrompt(chat, started.startedSeq, count);
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    prompt = engine.narratorPrompt(chat, started.startedSeq, count);
    times.push(performance.now() - t);
  }
  printTable('Prompt assembly (Node; the same engine code runs in the worker)', [
    ['chat history', '300 turns (user + reply), ~170 tokens each'],
    ['assembled prompt', `${fmt(prompt.tokens)} tokens (must ${fmt(prompt.tokensByTier.must)}, should ${fmt(prompt.tokensByTier.should)}, nice ${fmt(prompt.tokensByTier.nice)})`],
    ['parts dropped to fit the budget', fmt(prompt.dropped.length)],
    ['assembly time at the full budget, median / max', `${fmt(median(times), 2)} / ${fmt(Math.max(...times), 2)} ms`],
  ]);
}
