import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { QUIET_ANALYSIS } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';
import { nextToAnswer } from '../../src/engine/turn/reply-order.ts';

let engine: Engine;
let db: Db;
let chat: string;
let mira: string;
let theo: string;
const count = await loadTokenCounter();

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  mira = engine.newId();
  theo = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(mira, { name: 'Mira' }), draft.bot(theo, { name: 'Theo Marsh', persona: 'A lighthouse keeper.' })]);
  chat = engine.startChat(mira, kickoffInput());
});

/** One exchange, analysed: every witness present writes its memory of it. */
async function exchange(userText: string, reply: string) {
  const turn = engine.turns.beginTurn(chat, userText);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  const llm = scriptedLlm(...Array.from({ length: 4 }, () => QUIET_ANALYSIS)).client;
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm, job, count);
  return engine.transcript(chat).turns.at(-1)!;
}

const memoriesOf = (owner: string) => db.all<{ summary: string }>('SELECT summary FROM memories WHERE chat_id = ? AND owner_key = id_key(?)', [chat, owner]).map((m) => m.summary);
const prompt = () => engine.narratorPrompt(chat, engine.headSeq() + 1, count);
const theoPart = () => prompt().parts.filter((p) => p.label.startsWith('Theo Marsh') || p.label === 'guest: Theo Marsh').map((p) => p.text).join('\n');

/** The reply the player's `text` starts (or a turn given to `asked`): who it is for, and its prompt. */
function started(text: string, asked?: string) {
  const turn = engine.turns.beginTurn(chat, text, undefined, asked);
  const built = engine.narratorPrompt(chat, turn.startedSeq, count);
  engine.turns.finishTurn(turn, { text: 'Fine.', usage: null, truncated: false, reason: null, error: null });
  return { speaker: turn.speaker, parts: built.parts };
}
const edit = (target: Record<string, unknown>, field: string, value: unknown) => engine.editState(chat, target as never, field, value);

describe('groups that talk', () => {
  it('"Let <name> speak": the guest answers in its own voice, with its own card, memories and feelings kept longest; the host is voiced beside it', async () => {
    engine.setGuest(chat, theo, true);
    await exchange('"The lamp needs oil."', 'Mira hands over the can.');
    const theirs = db.get<{ id: string }>('SELECT id FROM memories WHERE chat_id = ? AND owner_key = id_key(?)', [chat, theo])!.id;
    engine.pinMemory(chat, theirs, true);
    const { speaker, parts } = started('', theo);
    expect(speaker).toBe(theo);
    const part = (label: string) => parts.find((p) => p.label === label)?.text ?? '';
    expect(part('frame')).toContain("You write Theo Marsh's words and actions");
    expect(part('persona')).toMatch(/^Theo Marsh: A lighthouse keeper\./);
    expect(part('turn')).toMatch(/It is Theo Marsh's turn/);
    expect(part('host: Mira')).toMatch(/Also here, and yours to voice: Mira/);
    expect(parts.some((p) => p.label === 'guest: Theo Marsh')).toBe(false);
    // Its own memories lead (pinned here, as the recent ones are in the story already); the host's come as another's.
    expect(part('pinned memories')).toMatch(/^Theo Marsh will never forget:[\s\S]*lamp needs oil/);
    expect(part("Mira's memories")).toMatch(/^Mira remembers:[\s\S]*lamp needs oil/);
    // Its reply is its own, attributed to it whoever it names first; Regenerate keeps it the guest's.
    expect(engine.transcript(chat).turns.at(-1)).toMatchObject({ speaker: theo, speakerName: 'Theo Marsh' });
    const again = engine.turns.regenerate(chat);
    expect(again.speaker).toBe(theo);
    engine.turns.finishTurn(again, { text: 'Mira is right.', usage: null, truncated: false, reason: null, error: null });
    expect(engine.transcript(chat).turns.at(-1)!.speaker).toBe(theo);
  });

  it('a per-chat reply order: who is named, else in turn; everyone in turn; only when asked. A muted bot stays present but is never chosen unless asked', async () => {
    engine.setGuest(chat, theo, true);
    expect(engine.chatState(chat)!.replyOrder).toBe('named');
    expect(started('"Theo, what do you think?"').speaker).toBe(theo);
    expect(started('"And you, Mira?"').speaker).toBe(mira);
    expect(started('"Hm."').speaker).toBe(theo);

    edit({ type: 'chat_state' }, 'replyOrder', 'asked');
    expect(engine.chatState(chat)!.replyOrder).toBe('asked');
    expect(started('"Theo?"').speaker).toBe(mira);
    expect(started('"Anyone?"').speaker).toBe(mira);

    edit({ type: 'chat_state' }, 'replyOrder', 'rotate');
    expect([started('"One."').speaker, started('"Two."').speaker, started('"Three."').speaker]).toEqual([theo, mira, theo]);

    edit({ type: 'activity', entity: theo }, 'muted', 1);
    expect(engine.chatState(chat)!.activities.find((a) => a.entity === theo)).toMatchObject({ muted: true, status: 'present' });
    expect([started('"Four."').speaker, started('"Theo!"').speaker]).toEqual([mira, mira]);
    expect(started('', theo).speaker).toBe(theo); // asked, a muted bot answers
    // Muted, Theo still witnesses what is said.
    await exchange('"The boat leaves at noon."', 'Mira nods.');
    expect(memoriesOf(theo).some((m) => m.includes('boat leaves at noon'))).toBe(true);

    expect(() => edit({ type: 'chat_state' }, 'replyOrder', 'loudest')).toThrow(/replyOrder|Invalid option/);
    expect(() => engine.turns.beginTurn(chat, '', undefined, engine.newId())).toThrow(/present in the scene/);
  });

  it('where everyone answers, each present bot takes its turn after the player, once', async () => {
    engine.setGuest(chat, theo, true);
    edit({ type: 'chat_state' }, 'replyOrder', 'all');
    const first = engine.turns.beginTurn(chat, '"Good evening, both."');
    expect(first.speaker).toBe(mira);
    engine.turns.finishTurn(first, { text: 'Evening.', usage: null, truncated: false, reason: null, error: null });
    expect(nextToAnswer(db, chat)).toBe(theo);
    const second = engine.turns.beginTurn(chat, '', undefined, theo);
    engine.turns.finishTurn(second, { text: 'Evening, Ada.', usage: null, truncated: false, reason: null, error: null });
    expect(nextToAnswer(db, chat)).toBeNull();
  });
});

describe('group scenes', () => {
  it('a guest arrives and leaves as activity; while present it witnesses and is voiced, and a reply is attributed to whoever it names first', async () => {
    engine.setGuest(chat, theo, true);
    const state = engine.chatState(chat)!;
    expect(state.activities.find((a) => a.entity === theo)).toMatchObject({ status: 'present', action: { verb: 'arriving' } });
    expect(state.names[theo]).toBe('Theo Marsh');
    expect(prompt().parts.find((p) => p.label === 'guest: Theo Marsh')).toMatchObject({ tier: 'must', kept: true });
    expect(theoPart()).toMatch(/yours to voice: Theo Marsh: A lighthouse keeper\./);

    const reply = await exchange('"Theo! You came."', 'Theo shakes the rain from his coat. Mira laughs.');
    expect(reply).toMatchObject({ speaker: theo, speakerName: 'Theo Marsh' });
    expect((await exchange('"Tea?"', 'Mira pours for everyone.')).speaker).toBe(mira);
    // Nobody named: the next in turn answers (who is named speaks, else in turn).
    expect((await exchange('"Well?"', 'The kettle sings.')).speaker).toBe(theo);
    expect(memoriesOf(theo).some((m) => m.includes('Theo! You came.'))).toBe(true);

    engine.setGuest(chat, theo, false);
    expect(engine.chatState(chat)!.activities.find((a) => a.entity === theo)).toMatchObject({ status: 'away' });
    expect(prompt().parts.some((p) => p.label === 'guest: Theo Marsh')).toBe(false);
    // Theo is away: a reply naming him is still the host's, since he cannot speak.
    expect((await exchange('"Where is Theo?"', 'Mira shrugs. "Theo went to trim the lamp."')).speaker).toBe(mira);
  });

  it('a fact said while the guest is away never reaches its memories or its part of the prompt, after it comes back', async () => {
    engine.setGuest(chat, theo, true);
    await exchange('"The lamp needs oil."', 'Theo nods and goes on polishing the lens.');
    engine.setGuest(chat, theo, false);
    await exchange('"The key to the vault is under the blue stone."', 'Mira memorises it: the blue stone, by the vault.');
    expect(memoriesOf(mira).some((m) => m.includes('blue stone'))).toBe(true);
    expect(memoriesOf(theo).some((m) => m.includes('blue stone'))).toBe(false);

    engine.setGuest(chat, theo, true);
    await exchange('"Welcome back, Theo. Where is the key to the vault? The blue stone?"', 'Theo looks puzzled.');
    expect(memoriesOf(theo).some((m) => m.includes('Welcome back'))).toBe(true);
    const recalled = engine.searchMemories({ ownerId: theo, chatId: chat, role: 'guest', query: 'key vault blue stone', k: 10, now: '1890-05-02T00:00:00' });
    expect(recalled.map((m) => m.summary).join('\n')).not.toContain('under the blue stone');
    // The question itself (said with Theo present) is his to remember; the fact, said while away, is not.
    expect(theoPart()).toContain('Theo Marsh remembers');
    expect(theoPart()).not.toContain('under the blue stone');
  });

  it('refuses to invite the host, a deleted bot, or send away someone who never came, and writes nothing', async () => {
    const events = () => db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    const before = events();
    expect(() => engine.setGuest(chat, mira, false)).toThrow(/host is always in their own chat/);
    expect(() => engine.setGuest(chat, theo, false)).toThrow(/Theo Marsh is not in this chat/);
    engine.deleteBot(theo);
    expect(() => engine.setGuest(chat, theo, true)).toThrow(/not here to invite/);
    expect(events()).toBe(before + 1);
  });
});

describe('groups that talk, through the leader', () => {
  it('"Let <name> speak" streams the guest’s own reply; where everyone answers, one Send brings each present bot’s reply in turn', async () => {
    const { testLeader, narratorOnly } = await import('../support/leader.ts');
    engine.setGuest(chat, theo, true);
    const llm = scriptedLlm('Theo: "The lamp is lit."', 'Mira: "Evening."', 'Theo: "Evening, Ada."');
    const { leader, client } = testLeader(engine, narratorOnly(llm.client));
    await client.letSpeak(chat, theo);
    await leader.idle();
    expect(engine.transcript(chat).turns.at(-1)).toMatchObject({ speaker: theo, text: 'Theo: "The lamp is lit."' });
    // The prompt was Theo's: his persona, his turn.
    expect(JSON.stringify(llm.calls[0]!.messages)).toContain("It is Theo Marsh's turn");

    edit({ type: 'chat_state' }, 'replyOrder', 'all');
    await client.sendTurn(chat, '"Good evening, both."');
    await leader.idle();
    await leader.idle();
    const replies = engine.transcript(chat).turns.slice(-3);
    expect(replies.map((t) => [t.role, t.speaker])).toEqual([
      ['user', 'you'],
      ['assistant', mira],
      ['assistant', theo],
    ]);
    expect(llm.calls).toHaveLength(3);
  });
});
