import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { createEngine, type Engine } from '../support/engine.ts';
import { LlmError, type LlmClient } from '../../src/engine/llm/port.ts';
import { narratorPrompt } from '../../src/engine/turn/narrator-prompt.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft } from '../support/fixtures.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { CHECKPOINT_MS } from '../../src/engine/leader/narrator.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
const clock = testClock();
const count = await loadTokenCounter();

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: clock.now }));
  bot = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { name: 'Mira', persona: 'A wry captain.' }), draft.chat(chat, bot)]);
});

const texts = () => engine.transcript(chat).turns.map((t) => [t.role, t.status, t.text]);

/** Every narrator delta takes 60% of the checkpoint interval on the test clock, so checkpoints fall due as in real time. */
function ticking(llm: LlmClient): LlmClient {
  return {
    complete: (messages, options) => llm.complete(messages, options),
    async *stream(messages, options) {
      for await (const part of llm.stream(messages, options)) {
        if (part.type === 'delta') clock.advance(CHECKPOINT_MS * 0.6);
        yield part;
      }
    },
  };
}

/**
 * Sends a turn through the leader core, as a tab does, and waits until the reply is committed and
 * analysed. Returns the reply as the transcript holds it, the narrator's prompt and the checkpoints.
 */
async function send(llm: LlmClient, text: string, withLeader?: (leader: ReturnType<typeof testLeader>['leader']) => void) {
  const { leader, client } = testLeader(engine, narratorOnly(ticking(llm)), { now: clock.now });
  withLeader?.(leader);
  // Each checkpoint is a write of the text so far to stream_checkpoints: watched at the database.
  const checkpoints: string[] = [];
  const { db } = engine.ctx;
  const run = db.run;
  db.run = (sql, params) => {
    if (sql.includes('INSERT INTO stream_checkpoints')) checkpoints.push(String((params as unknown[] | undefined)?.[2]));
    return run.call(db, sql, params);
  };
  try {
    const { turnId } = await client.sendTurn(chat, text);
    await leader.idle();
    const reply = engine.transcript(chat).turns.find((t) => t.turnId === turnId)!;
    return { reply, checkpoints };
  } finally {
    db.run = run;
  }
}

const narratorCalls = (llm: ReturnType<typeof scriptedLlm>) => llm.calls.filter((c) => c.options.priority === 'narrator');

describe('a turn', () => {
  it('stores the parsed user turn, streams the reply with checkpoints, and finishes it', async () => {
    const llm = scriptedLlm('The wind rises and Mira laughs at the sky.');
    const { reply, checkpoints } = await send(llm.client, '*looks up* "Storm coming?" ((is this ok?))');
    expect(reply).toMatchObject({ status: 'done', reason: null, text: 'The wind rises and Mira laughs at the sky.' });
    expect(checkpoints.length).toBeGreaterThan(2);
    expect(texts()).toEqual([
      ['user', 'done', '*looks up* "Storm coming?" ((is this ok?))'],
      ['assistant', 'done', 'The wind rises and Mira laughs at the sky.'],
    ]);
    expect(engine.transcript(chat).turns[0]!.segments).toEqual([
      { type: 'action', text: 'looks up' },
      { type: 'dialogue', text: 'Storm coming?' },
      { type: 'ooc', text: 'is this ok?' },
    ]);
    expect(engine.transcript(chat).turns[1]).toMatchObject({ promptTokens: 10, model: 'dphn/Dolphin-Mistral-24B-Venice-Edition' });
    expect(engine.turns.checkpointed(chat, engine.transcript(chat).turns[1]!.turnId)).toBeUndefined();
  });

  it('never sends OOC to the narrator: not in the new turn, not from history', async () => {
    const llm = scriptedLlm('First reply.', 'Second reply.');
    await send(llm.client, '"Hello." ((SECRET-ONE))');
    await send(llm.client, '((SECRET-TWO)) *waves*');
    const sent = llm.calls.map((c) => c.messages.map((m) => m.content).join('\n')).join('\n');
    expect(sent).not.toMatch(/SECRET/);
    expect(narratorCalls(llm)[1]!.messages.at(-1)).toEqual({ role: 'user', content: '*waves*' });
    expect(narratorCalls(llm)[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('tells the narrator who speaks, who you are, where and when', async () => {
    const llm = scriptedLlm('ok');
    await send(llm.client, 'Hi');
    const system = narratorCalls(llm)[0]!.messages[0]!.content;
    expect(system).toMatch(/Mira: A wry captain\./);
    expect(system).toMatch(/Ada \(she\/her\): A cartographer\./);
    expect(system).toMatch(/It is 1 May 1890, 20:00; the weather: storm\./);
    expect(system).toMatch(/never write Ada's words/);
  });

  it('refuses a second reply while one is streaming', () => {
    engine.turns.beginTurn(chat, 'one');
    expect(() => engine.turns.beginTurn(chat, 'two')).toThrow(/still being written/);
  });

  it('keeps what was written when the user presses Stop', async () => {
    let stop!: () => Promise<unknown>;
    const llm: LlmClient = {
      complete: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'delta', text: 'Mira begins ' };
        await stop();
        yield { type: 'delta', text: 'never seen' };
      },
    };
    const { reply } = await send(llm, 'Go on', (leader) => (stop = () => leader.client.stopTurn(chat)));
    expect(reply).toMatchObject({ status: 'truncated', reason: 'stopped' });
    expect(engine.transcript(chat).turns[1]).toMatchObject({ status: 'truncated', reason: 'stopped', text: expect.stringMatching(/^Mira begins/) });
  });

  it('keeps the partial text and the reason when the relay fails mid-stream', async () => {
    const llm: LlmClient = {
      complete: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'delta', text: 'Half a ' };
        throw new LlmError('upstream_busy', 'The model server is busy', 429);
      },
    };
    const { reply } = await send(llm, 'Go on');
    expect(reply).toMatchObject({ status: 'truncated', reason: 'error', error: { code: 'upstream_busy' } });
    expect(engine.transcript(chat).turns[1]).toMatchObject({ status: 'truncated', text: 'Half a ', error: { code: 'upstream_busy', message: 'The model server is busy' } });
  });

  it('a leader that finds an unfinished reply commits the checkpointed text as interrupted, once', async () => {
    const turn = engine.turns.beginTurn(chat, 'Tell me a story');
    engine.turns.checkpoint(chat, turn.turnId, 'Once upon a time, on a ship');
    // The leader dies here. The next one opens the same database:
    const next = createEngine({ db, now: clock.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
    expect(next.turns.recoverInterrupted()).toEqual([turn.turnId]);
    expect(next.transcript(chat).turns[1]).toMatchObject({ status: 'truncated', reason: 'interrupted', text: 'Once upon a time, on a ship' });
    expect(next.turns.recoverInterrupted()).toEqual([]);
    // And the chat can go on.
    expect(() => next.turns.beginTurn(chat, 'Again')).not.toThrow();
  });

  it('regenerate replaces the last reply, which stays in the log, answering the same user turn', async () => {
    await send(scriptedLlm('A dull reply.').client, 'Hi');
    const again = engine.turns.regenerate(chat);
    const prompt = narratorPrompt(db, chat, again.startedSeq, engine.settings(), count);
    expect(prompt.messages.slice(1)).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(texts()).toEqual([
      ['user', 'done', 'Hi'],
      ['assistant', 'streaming', ''],
    ]);
    engine.turns.finishTurn(again, { text: 'A better reply.', usage: null, truncated: false, reason: null, error: null });
    expect(texts().at(-1)).toEqual(['assistant', 'done', 'A better reply.']);
    const replies = db.all<{ superseded_by: number | null }>(
      "SELECT v.superseded_by FROM events e LEFT JOIN visibility v ON v.seq = e.seq WHERE e.kind = 'assistant_turn' ORDER BY e.seq",
    );
    expect(replies.map((r) => r.superseded_by === null)).toEqual([false, true]);
  });

  it('a re-sent begin (same command id) starts one turn', () => {
    const first = engine.turns.beginTurn(chat, 'Hello', 'cmd-1');
    const again = engine.turns.beginTurn(chat, 'Hello', 'cmd-1');
    expect(again).toEqual(first);
    expect(engine.transcript(chat).turns).toHaveLength(2);
  });
});

describe("a player's turn in the transcript", () => {
  const stored = (turnId: string) => db.get<{ segments: string }>('SELECT segments FROM transcript WHERE turn_id = ?', [turnId])!.segments;

  it('of one part keeps only its type, not its words twice, and reads back whole', () => {
    const [one, two] = [engine.newId(), engine.newId()];
    const parts = [{ type: 'action' as const, text: '*waves*' }, { type: 'ooc' as const, text: 'brb' }];
    engine.append([
      { kind: 'user_turn', chatId: chat, payload: { turnId: one, text: '"Hold the lantern steady."', segments: [{ type: 'dialogue', text: '"Hold the lantern steady."' }] } },
      { kind: 'user_turn', chatId: chat, payload: { turnId: two, text: '*waves* (( brb ))', segments: parts } },
    ]);
    expect(stored(one)).toBe('"dialogue"');
    expect(JSON.parse(stored(two))).toHaveLength(2);
    const turns = engine.transcript(chat).turns;
    expect(turns.find((t) => t.turnId === one)!.segments).toEqual([{ type: 'dialogue', text: '"Hold the lantern steady."' }]);
    expect(turns.find((t) => t.turnId === two)!.segments).toEqual(parts);
    // A database from before migration 0049: tests/engine/transcript-text-once.test.ts.
  });
});
