import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { createEngine, type Engine } from '../support/engine.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { MAX_DELTA_DEPTH } from '../../src/engine/events/prompt-texts.ts';
import { keptText } from '../../src/engine/turn/prompt-report.ts';

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

describe("a card's words in the log", () => {
  const card = `A wry ship captain who has sailed the northern route for twenty years. ${'She keeps her charts dry, her crew loyal and her temper short; she trusts the sea more than any harbour master. '.repeat(30)}`;
  const keptTexts = () => db.all<{ text: string }>("SELECT json_extract(payload, '$.text') AS text FROM events WHERE kind = 'prompt_text_kept' AND chat_id = ? ORDER BY id", [chat]).map((r) => r.text);
  const persona = (turnId: string, inChat = chat) => engine.replyPrompt(inChat, turnId)!.parts.find((p) => p.label === 'persona')!.text;

  it('are logged once per chat, and every reply still shows them in "Why this reply?"', async () => {
    engine.saveBot({ ...draft.bot(bot).payload, name: 'Mira', persona: card }, bot);
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira nods.', 'Mira frowns.', 'Mira laughs.', 'Mira sighs.').client));
    for (const line of ['"Ahoy."', '"The map?"', '"Tell me of the storm."']) {
      await client.sendTurn(chat, line);
      await leader.idle();
    }
    const replies = engine.transcript(chat).turns.filter((t) => t.role === 'assistant' && t.text.startsWith('Mira'));
    expect(replies).toHaveLength(3);
    expect(keptTexts().filter((t) => t.includes('northern route'))).toHaveLength(1);
    // No reply's own event carries the card again.
    const payloads = db.all<{ payload: string }>("SELECT payload FROM events WHERE kind = 'assistant_turn' AND chat_id = ?", [chat]);
    expect(payloads.filter((p) => p.payload.includes('northern route'))).toEqual([]);
    for (const reply of replies) expect(persona(reply.turnId)).toContain('northern route for twenty years');

    // A rewind past the first reply hides the event holding the words: the next reply logs them again.
    engine.rewind(chat, replies[0]!.seq);
    await client.sendTurn(chat, '"Again, from the top."');
    await leader.idle();
    const anew = engine.transcript(chat).turns.at(-1)!;
    expect(anew.text).toBe('Mira sighs.');
    expect(keptTexts().filter((t) => t.includes('northern route'))).toHaveLength(2);
    expect(persona(anew.turnId)).toContain('northern route for twenty years');

    // A branch copies what its replies name.
    const branch = engine.branchChat(chat, anew.seq);
    const copied = engine.transcript(branch).turns.at(-1)!;
    expect(persona(copied.turnId, branch)).toContain('northern route for twenty years');
  });

  it('names the story turns it told without copying them, and reads their names back from the transcript', async () => {
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira nods.', 'Mira frowns at the chart.', 'Mira laughs.').client));
    for (const line of ['"Ahoy."', '"The map?"', '"Tell me of the storm."']) {
      await client.sendTurn(chat, line);
      await leader.idle();
    }
    const last = engine.transcript(chat).turns.at(-1)!;
    const stored = JSON.parse(db.get<{ p: string }>("SELECT json_extract(payload, '$.prompt') AS p FROM events WHERE kind = 'assistant_turn' ORDER BY seq DESC LIMIT 1")!.p);
    // One part for the whole run: no turn's words in the log twice.
    expect(stored.parts.filter((p: { story?: unknown }) => p.story)).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain('frowns at the chart');
    const story = engine.replyPrompt(chat, last.turnId)!.parts.filter((p) => p.turnId);
    expect(story.map((p) => p.label)).toEqual(['Mira: The storm hits as you board.', 'Ada: "Ahoy."', 'Mira: Mira nods.', 'Ada: "The map?"', 'Mira: Mira frowns at the chart.', 'Ada: "Tell me of the storm."'].slice(0, story.length));
    expect(story.length).toBeGreaterThanOrEqual(5);
    expect(story.every((p) => p.tokens > 0 && p.kept)).toBe(true);

    // A turn hidden since leaves the run unmatched: each is named by its place, its cost as it was.
    const frown = engine.transcript(chat).turns.find((t) => t.text === 'Mira frowns at the chart.')!;
    await client.setTurnHidden(chat, frown.turnId, true);
    const after = engine.replyPrompt(chat, last.turnId)!.parts.filter((p) => p.label.startsWith('story turn'));
    expect(after.map((p) => p.tokens)).toEqual(story.map((p) => p.tokens));
    expect(after[0]!.label).toBe(`story turn 1 of ${story.length}`);
  });

  it('a short part stays in the report itself', async () => {
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira nods.').client));
    await client.sendTurn(chat, '"Ahoy."');
    await leader.idle();
    const reply = engine.transcript(chat).turns.at(-1)!;
    expect(keptTexts().some((t) => t.includes('A wry ship captain.'))).toBe(false);
    expect(persona(reply.turnId)).toBe('Mira: A wry ship captain.\nTraits: wry, loyal.');
  });
});

describe('the feelings and threads a reply was told, in the log', () => {
  const FACTS = ['the lighthouse', 'the ledger', 'the storm', 'her sister', 'the debt', 'the silver key', 'the tide tables', 'the old chart'];
  /** A narrator whose every prompt is kept, and an analysis that teaches Mira one more fact each reply. */
  function growingFeelings() {
    const told: string[] = [];
    let replies = 0;
    const llm: LlmClient = {
      async complete(_messages, options) {
        const fact = `Ada talked about ${FACTS[replies % FACTS.length]} on reply ${replies}`;
        const analysis = { minutesPassed: 1, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta: 1, trustDelta: 0, newFacts: [fact] } } };
        return { text: options.json ? JSON.stringify(analysis) : 'A summary.', usage: null, model: options.model, finishReason: 'stop' };
      },
      async *stream(messages) {
        told.push(messages.map((m) => m.content).join('\n'));
        replies++;
        yield { type: 'delta', text: `Mira answers, reply ${replies}.` };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    return { llm, told };
  }
  const keptPayloads = (inChat = chat) => db.all<{ payload: string }>("SELECT payload FROM events WHERE kind = 'prompt_text_kept' AND chat_id = ? ORDER BY seq", [inChat]).map((r) => JSON.parse(r.payload));
  const feelingsOf = (turnId: string, inChat = chat) => engine.replyPrompt(inChat, turnId)!.parts.find((p) => p.label === 'feelings: Mira → Ada')?.text;

  it('are kept as what they share with the reply before, and every reply shows exactly the words its prompt had', async () => {
    const { llm, told } = growingFeelings();
    const { leader, client } = testLeader(engine, llm);
    for (let i = 0; i < 40; i++) {
      await client.sendTurn(chat, `"Line ${i}."`);
      await leader.idle();
    }
    const replies = engine.transcript(chat, { limit: 500 }).turns.filter((t) => t.role === 'assistant' && t.text.startsWith('Mira answers'));
    expect(replies).toHaveLength(40);
    const shown = replies.map((reply) => feelingsOf(reply.turnId));
    // Long enough to be kept apart from the report for most replies, and grown by a fact each time.
    const keptApart = shown.filter((text): text is string => typeof text === 'string' && text.length >= 240);
    expect(keptApart.length).toBeGreaterThan(25);
    expect(new Set(keptApart).size).toBe(keptApart.length);
    // Each reply's words are the prompt's own, to the character.
    replies.forEach((_, i) => {
      if (shown[i]) expect(told[i]).toContain(shown[i]);
    });

    const payloads = keptPayloads();
    const deltas = payloads.filter((p) => 'delta' in p);
    expect(deltas.length).toBeGreaterThan(20);
    // A delta carries the new fact, not the story's facts again.
    for (const delta of deltas) expect(JSON.stringify(delta).length).toBeLessThan(400);
    const wholeFeelings = payloads.filter((p) => 'text' in p && p.text.startsWith('Mira toward Ada'));
    // Whole words again at least every MAX_DELTA_DEPTH texts, so a reading never walks far back.
    expect(Math.max(...deltas.map((p) => p.depth))).toBeLessThanOrEqual(MAX_DELTA_DEPTH);
    expect(wholeFeelings.length).toBeGreaterThanOrEqual(2);

    // A branch holds what its replies' texts are sliced from.
    const last = replies.at(-1)!;
    const branch = engine.branchChat(chat, last.seq);
    expect(feelingsOf(engine.transcript(branch).turns.at(-1)!.turnId, branch)).toBe(shown.at(-1));

    // A rewind hides the texts after its turn: the next reply's are sliced from texts in view.
    engine.rewind(chat, replies[30]!.seq);
    await client.sendTurn(chat, '"From here again."');
    await leader.idle();
    const anew = engine.transcript(chat).turns.at(-1)!;
    expect(told.at(-1)).toContain(feelingsOf(anew.turnId)!);
  });

  it('slices that do not give back the words their hash names show no words, never other ones', async () => {
    const { llm } = growingFeelings();
    const { leader, client } = testLeader(engine, llm);
    for (let i = 0; i < 16; i++) {
      await client.sendTurn(chat, `"Line ${i}."`);
      await leader.idle();
    }
    const last = engine.transcript(chat).turns.at(-1)!;
    const kept = keptPayloads().filter((p) => 'delta' in p).at(-1)!;
    expect(feelingsOf(last.turnId)).toBeDefined();
    const report = JSON.parse(db.get<{ p: string }>("SELECT json_extract(payload, '$.prompt') AS p FROM events WHERE kind = 'assistant_turn' ORDER BY seq DESC LIMIT 1")!.p);
    expect(report.parts.find((p: { textHash?: string }) => p.textHash === kept.hash)).toBeDefined();
    // Hand-made events, as a damaged or hostile backup could hold: slices of a real base that give
    // other words than the hash names, and the reply's own delta read against another base.
    const other = keptPayloads().find((p) => 'text' in p && p.hash !== kept.base)!;
    engine.append([
      { kind: 'prompt_text_kept', chatId: chat, payload: { hash: 'f'.repeat(32), base: kept.base, depth: kept.depth, delta: [[0, 40], ' and more.'] } },
      { kind: 'prompt_text_kept', chatId: chat, payload: { ...kept, hash: 'e'.repeat(32), base: other.hash } },
    ]);
    expect(keptText(db, chat, 'f'.repeat(32))).toBeNull();
    expect(keptText(db, chat, 'e'.repeat(32))).toBeNull();
    expect(keptText(db, chat, kept.hash)?.text).toBe(feelingsOf(last.turnId));
  });
});

describe("a memory's words in the log", () => {
  const told = 'Ada hid the lighthouse map in her boot the night the harbour master came aboard, and Mira saw her do it.';
  it('are logged once however many replies recall it, and each reply shows them as they were when it was told', async () => {
    const memoryId = engine.newId();
    engine.append([draft.memory(chat, memoryId, bot, { summary: told, significance: 2 })]);
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira eyes your boot.', 'Mira shrugs.', 'Mira laughs.').client));
    for (const line of ['"Where is the lighthouse map?"', '"The map, Mira. The lighthouse map."', '"Did you see where the map went?"']) {
      await client.sendTurn(chat, line);
      await leader.idle();
    }
    const replies = engine.transcript(chat).turns.filter((t) => t.role === 'assistant' && t.text.startsWith('Mira'));
    expect(replies).toHaveLength(3);
    const recalled = (turnId: string) => engine.replyPrompt(chat, turnId)!.memories.find((m) => m.id === memoryId)?.summary;
    for (const reply of replies) expect(recalled(reply.turnId)).toBe(told);
    const keptTexts = db.all<{ text: string | null }>("SELECT json_extract(payload, '$.text') AS text FROM events WHERE kind = 'prompt_text_kept' AND chat_id = ?", [chat]);
    expect(keptTexts.filter((k) => k.text === told)).toHaveLength(1);
    // The reports name it by hash (what the prompt's own memory part said is that part's text).
    const stored = db.all<{ p: string }>("SELECT json_extract(payload, '$.prompt') AS p FROM events WHERE kind = 'assistant_turn' AND chat_id = ? AND p IS NOT NULL", [chat]);
    const entries = stored.flatMap((row) => (JSON.parse(row.p).memories as { id: string; summary: string | null; summaryHash?: string }[]).filter((m) => m.id === memoryId));
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect([entry.summary, entry.summaryHash]).toEqual([null, expect.stringMatching(/^[0-9a-f]{32}$/)]);

    // Rewritten since (a scene's summary, a correction): the replies before still show what they were told.
    const rewritten = 'Ada hid the lighthouse map in a hollow of the mast, where only Mira knows to look for it.';
    engine.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId, summary: rewritten } }]);
    expect(db.get<{ summary: string }>('SELECT summary FROM memories WHERE memory_key = id_key(?)', [memoryId])!.summary).toBe(rewritten);
    for (const reply of replies) expect(recalled(reply.turnId)).toBe(told);
  });
});
