import { performance } from 'node:perf_hooks';
import { defaultKickoff } from '../src/engine/kickoff/schema.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { fmt, median, printTable } from './table.ts';

const TURNS = Number(process.env.BENCH_STEER_TURNS ?? 10_000);
const RUNS = 5;

/**
 * Steering a long story, in the engine (Node, sqlite-wasm in memory): a chat of 10,000 turns, each
 * reply analysed (an edge delta, a memory, the clock), then the controls a player uses on it.
 * The goal is 100 ms each from click to screen; these are the engine's share.
 */
export async function benchSteer(): Promise<void> {
  const { engine, db } = await openTestEngine({ now: Date.now });
  engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
  const bot = engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null);
  const chat = engine.startChat(bot, defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 1, 20)));
  for (let i = 0; i < TURNS; i += 400) {
    const drafts: EventDraft[] = [];
    for (let j = i; j < Math.min(TURNS, i + 400); j += 2) {
      const turnId = engine.newId();
      drafts.push(
        draft.userTurn(chat, engine.newId(), `"Turn ${j}, the storm and the lantern."`),
        draft.assistantStarted(chat, turnId, bot),
        { ...draft.assistantTurn(chat, turnId, bot, 'The storm broke over the harbour while Mira held the lantern high.'), causeDraft: drafts.length + 1 },
        { ...draft.edge(chat, bot, 'you', { affinityDelta: 1, facts: [`fact ${j}`] }), causeDraft: drafts.length + 2 },
        { ...draft.memory(chat, engine.newId(), bot, { summary: `Turn ${j}: the storm and the lantern.` }), causeDraft: drafts.length + 2 },
      );
    }
    engine.append(drafts);
  }
  const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events WHERE chat_id = ?', [chat])!.n;
  const time = (fn: () => unknown) => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  const finish = (turn: ReturnType<typeof engine.turns.regenerate>) =>
    engine.turns.finishTurn(turn, { text: 'Another way it could go.', usage: null, truncated: false, reason: null, error: null });

  const regenerate: number[] = [];
  const choose: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    regenerate.push(time(() => finish(engine.turns.regenerate(chat))));
    choose.push(time(() => engine.chooseVersion(chat, 1)));
  }
  const undo: number[] = [];
  const preview: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const turns = engine.transcript(chat, { limit: 8 }).turns;
    const from = turns.at(-6)!.seq; // three exchanges back
    preview.push(time(() => engine.previewRewind(chat, from)));
    const rewound = engine.rewind(chat, from);
    undo.push(time(() => engine.undoRewind(chat, rewound.seq)));
  }
  // Rewind timed apart from its undo.
  const rewind: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const from = engine.transcript(chat, { limit: 8 }).turns.at(-6)!.seq;
    let seq = 0;
    rewind.push(time(() => (seq = engine.rewind(chat, from).seq)));
    engine.undoRewind(chat, seq);
  }
  const editLatest: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const reply = engine.transcript(chat, { limit: 1 }).turns.at(-1)!;
    editLatest.push(time(() => engine.editTurn(chat, reply.turnId, `Edited ${i}.`)));
  }
  const at = engine.transcript(chat, { limit: 4 }).turns.at(-3)!.seq;
  const latest = engine.transcript(chat, { limit: 1 }).turns.at(-1)!.seq;
  const branchEarlier: number[] = [];
  const branchLatest: number[] = [];
  let branch = '';
  for (let i = 0; i < RUNS; i++) {
    branchEarlier.push(time(() => engine.branchChat(chat, at)));
    branchLatest.push(time(() => (branch = engine.branchChat(chat, latest))));
  }
  // The copied stretch has no journal: the first rewind into it replays the branch once.
  const branchFirstRewind = time(() => engine.rewind(branch, engine.transcript(branch, { limit: 8 }).turns.at(-6)!.seq));

  printTable(`Steering a chat of ${fmt(TURNS)} turns (${fmt(events)} events; Node, sqlite-wasm in memory; median of ${RUNS})`, [
    ['regenerate (a new version of the latest reply), engine', `${fmt(median(regenerate))} ms`],
    ['choose another version (‹ ›), engine', `${fmt(median(choose))} ms`],
    ['rewind preview, three exchanges back', `${fmt(median(preview))} ms`],
    ['rewind, three exchanges back', `${fmt(median(rewind))} ms`],
    ['undo / restore that rewind', `${fmt(median(undo))} ms`],
    ['edit the latest reply (its analysis superseded)', `${fmt(median(editLatest))} ms`],
    ['branch from the latest turn (copies the story in SQL)', `${fmt(median(branchLatest))} ms`],
    ['branch from the third-last turn', `${fmt(median(branchEarlier))} ms`],
    ['first rewind in a new branch (replays the branch once)', `${fmt(branchFirstRewind)} ms`],
  ]);
}
