import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { QUIET_ANALYSIS } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';

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

const memoriesOf = (owner: string) => db.all<{ summary: string }>('SELECT summary FROM memories WHERE chat_id = ? AND owner_id = ?', [chat, owner]).map((m) => m.summary);
const prompt = () => engine.narratorPrompt(chat, engine.headSeq() + 1, count);
const theoPart = () => prompt().parts.filter((p) => p.label.startsWith('Theo Marsh') || p.label === 'guest: Theo Marsh').map((p) => p.text).join('\n');

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
    expect((await exchange('"Well?"', 'The kettle sings.')).speaker).toBe(mira);
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
