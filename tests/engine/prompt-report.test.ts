import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { createEngine, type Engine } from '../support/engine.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: Date.now }));
  bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira', persona: 'A wry ship captain.' })]);
  chat = engine.startChat(bot, kickoffInput());
  engine.append([
    draft.memory(chat, engine.newId(), bot, { summary: 'Ada hid the lighthouse map in her boot.', significance: 2 }),
    draft.memory(chat, engine.newId(), bot, { summary: 'Ada promised to repay the debt.', pinned: true }),
    draft.memory(chat, engine.newId(), bot, { summary: 'Rain fell all night.' }),
  ]);
});

describe('the prompt inspector ("why did it say that")', () => {
  it('keeps, with the reply, each part by tier with its tokens, and why each memory went in', async () => {
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira eyes your boot.').client));
    await client.sendTurn(chat, '"Where is the lighthouse map?"');
    await leader.idle();
    const reply = engine.transcript(chat).turns.at(-1)!;
    const report = (await client.replyPrompt(chat, reply.turnId))!;

    expect(report.budget).toEqual({ soft: 6000, hard: 8000 });
    expect(report.parts.filter((p) => p.tier === 'must').map((p) => p.label)).toEqual(expect.arrayContaining(['frame', 'persona', 'you', 'scene', 'new turn']));
    expect(report.parts.find((p) => p.label === 'persona')).toMatchObject({ kept: true, text: 'Mira: A wry ship captain.\nTraits: wry, loyal.' });
    expect(report.parts.every((p) => p.tokens > 0)).toBe(true);
    expect(report.tokens).toBe(report.parts.filter((p) => p.kept).reduce((sum, p) => sum + p.tokens, 0));
    const recalled = report.memories.find((m) => !m.pinned)!;
    expect(recalled).toMatchObject({ summary: 'Ada hid the lighthouse map in her boot.', significance: 2, matched: ['lighthouse', 'map'] });
    expect(recalled.score).toBeGreaterThan(0);
    expect(recalled.relevance).toBe(1);
    expect(report.memories.find((m) => m.pinned)).toMatchObject({ summary: 'Ada promised to repay the debt.', score: null });
    expect(report.memories.map((m) => m.summary)).not.toContain('Rain fell all night.');

    // Exact for old replies: editing the bot later does not rewrite what this reply was told, and
    // the report is still there for a new leader over the same database (a reload).
    engine.saveBot({ ...draft.bot(bot).payload, name: 'Mira', persona: 'Now a pirate.' }, bot);
    const reopened = createEngine({ db, now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
    expect(reopened.replyPrompt(chat, reply.turnId)!.parts.find((p) => p.label === 'persona')!.text).toContain('A wry ship captain.');
  });

  it('says what was dropped to fit a tight budget', async () => {
    engine.changeSettings({ narrativeBudget: { soft: 500, hard: 1000 } });
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm(...Array.from({ length: 12 }, (_, i) => `Reply ${i} ${'and the sea goes on '.repeat(20)}`)).client));
    for (let i = 0; i < 12; i++) {
      await client.sendTurn(chat, `Turn ${i}: ${'tell me more about the storm and the ship '.repeat(6)}`);
      await leader.idle();
    }
    const report = engine.replyPrompt(chat, engine.transcript(chat).turns.at(-1)!.turnId)!;
    const dropped = report.parts.filter((p) => !p.kept);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((p) => p.tier !== 'must')).toBe(true);
    expect(report.parts.filter((p) => p.kept).reduce((sum, p) => sum + p.tokens, 0)).toBe(report.tokens);
  });

  it('is null for a reply written before prompts were kept', () => {
    const turn = engine.turns.beginTurn(chat, 'Hi');
    engine.turns.finishTurn(turn, { text: 'Hello.', usage: null, truncated: false, reason: null, error: null });
    expect(engine.replyPrompt(chat, turn.turnId)).toBeNull();
  });
});
