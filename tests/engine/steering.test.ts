import { describe, expect, it } from 'vitest';
import { draftOf } from '../../src/engine/leader/narrator.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { narratorOnly, QUIET_ANALYSIS, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';
import { readMigrations } from '../support/sqlite.ts';

const NOTE = 'Keep every reply under fifty words; Mira hides her fear of the sea.';

describe("the director's note", () => {
  it('is told last in every reply prompt, at the MUST tier, after the player’s words; an empty note tells nothing', async () => {
    const { engine, chat } = await openStory();
    const script = scriptedLlm('The gulls wheel overhead.', 'She shrugs.');
    const { client, leader } = testLeader(engine, narratorOnly(script.client));

    await client.sendTurn(chat, '"Where to?"');
    await leader.idle();
    expect(JSON.stringify(script.calls[0]!.messages)).not.toMatch(/Director's note/);

    await client.editState(chat, { type: 'chat_state' }, 'directorNote', `  ${NOTE}  `);
    expect((await client.chatState(chat))!.directorNote).toBe(NOTE);
    await client.sendTurn(chat, '"Are you scared?"');
    await leader.idle();
    const messages = script.calls[1]!.messages;
    const last = messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content.indexOf('"Are you scared?"')).toBeGreaterThanOrEqual(0);
    expect(last.content.indexOf(NOTE)).toBeGreaterThan(last.content.indexOf('"Are you scared?"'));
    expect(messages[0]!.content).not.toContain(NOTE);
  });

  it('stays in the prompt when the budget is too small for anything else that is not MUST', async () => {
    const { engine, chat } = await openStory();
    await engine.editState(chat, { type: 'chat_state' }, 'directorNote', NOTE);
    await engine.changeSettings({ narrativeBudget: { hard: 1_000, soft: 500 } });
    const prompt = engine.narratorPrompt(chat, engine.headSeq() + 1, await loadTokenCounter());
    const note = prompt.parts.find((p) => p.label === "director's note")!;
    expect(note).toMatchObject({ tier: 'must', kept: true });
    expect(prompt.report.parts.some((p) => p.label === "director's note")).toBe(true);
  });

  it('is one undoable drawer edit, refused past 2,000 characters with nothing written', async () => {
    const { engine, db, chat } = await openStory();
    const events = () => db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    engine.editState(chat, { type: 'chat_state' }, 'directorNote', NOTE);
    expect(engine.chatState(chat)!.lastEdit).toBe('directorNote');
    const before = events();
    expect(() => engine.editState(chat, { type: 'chat_state' }, 'directorNote', 'x'.repeat(2_001))).toThrow(/2,000 characters or fewer/);
    expect(events()).toBe(before);
    engine.undoStateEdit(chat);
    expect(engine.chatState(chat)!.directorNote).toBe('');
  });

  it('arrives in a database whose journal predates it: an edit made before can still be undone', async () => {
    const { engine, db, chat } = await openStory();
    const weather = engine.chatState(chat)!.weather;
    engine.editState(chat, { type: 'chat_state' }, 'weather', 'fog');
    // The journal as migration 0012 found it: rows saved before the column existed.
    db.run("UPDATE projection_journal SET old = json_remove(old, '$.director_note') WHERE tbl = 'chat_state' AND old IS NOT NULL");
    const migration = readMigrations().find((m) => m.name.startsWith('0012'))!;
    db.exec(migration.sql.slice(migration.sql.indexOf('UPDATE projection_journal')));
    engine.undoStateEdit(chat);
    expect(engine.chatState(chat)).toMatchObject({ weather, directorNote: '' });
  });

  it('comes along into a branch', async () => {
    const { engine, chat } = await openStory();
    engine.editState(chat, { type: 'chat_state' }, 'directorNote', NOTE);
    const opening = engine.transcript(chat).turns.at(-1)!;
    const branch = engine.branchChat(chat, opening.seq);
    expect(engine.chatState(branch)!.directorNote).toBe(NOTE);
  });
});

describe('impersonate', () => {
  it('drafts the player’s next message in their voice from the story so far, and writes nothing', async () => {
    const { engine, db, chat } = await openStory();
    const script = scriptedLlm('The tide turns. "Will you come?" Mira asks.', QUIET_ANALYSIS, 'Ada: *I take her hand.* "Always."');
    const { client, leader } = testLeader(engine, script.client);
    await client.sendTurn(chat, '"Where to?"');
    await leader.idle();
    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;

    const { text } = await client.impersonate(chat);
    expect(text).toBe('*I take her hand.* "Always."');
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(events);
    const call = script.calls.at(-1)!;
    expect(call.messages[0]!.content).toMatch(/You write Ada's words and actions/);
    expect(call.messages[0]!.content).toMatch(/never write Mira's words/);
    expect(JSON.stringify(call.messages)).toContain('Will you come?');
    expect(call.messages.at(-1)!.content).toMatch(/Write Ada's next message/);
  });

  it('keeps a draft that merely mentions the name, and trims only a leading label', () => {
    expect(draftOf('  Ada: "Fine."  ', 'Ada')).toBe('"Fine."');
    expect(draftOf('"Ada: that is my name."', 'Ada')).toBe('"Ada: that is my name."');
    expect(draftOf('Adam walks in.', 'Ada')).toBe('Adam walks in.');
  });
});

describe("a bot's pronouns", () => {
  it('are told with its persona; a bot authored before pronouns has none, and its event is kept as written', async () => {
    const { engine, db, bot, chat } = await openStory();
    const persona = async () => engine.narratorPrompt(chat, engine.headSeq() + 1, await loadTokenCounter()).parts.find((p) => p.label === 'persona')!.text;
    expect(engine.getBot(bot)!.pronouns).toBe('');
    expect(await persona()).toMatch(/^Mira: /);
    const authored = db.get<{ payload: string }>("SELECT payload FROM events WHERE kind = 'bot_authored'")!;
    expect(JSON.parse(authored.payload)).not.toHaveProperty('pronouns');

    const { pronouns: _none, ...fields } = { ...engine.getBot(bot)!, pronouns: undefined };
    engine.saveBot({ ...fields, pronouns: ' she/her ' }, bot);
    expect(engine.getBot(bot)!.pronouns).toBe('she/her');
    expect(await persona()).toMatch(/^Mira \(she\/her\): /);
    expect(() => engine.saveBot({ ...fields, pronouns: 'x'.repeat(41) }, bot)).toThrow(/40 characters or fewer/);
  });
});

describe('sampling', () => {
  it('replies use the global sampler, a chat’s own knobs over it, and follow the settings again once the chat clears them', async () => {
    const { engine, db, chat } = await openStory();
    const script = scriptedLlm('One.', 'Two.', 'Three.', 'Four.');
    const { client, leader } = testLeader(engine, narratorOnly(script.client));
    const reply = async (line: string) => {
      await client.sendTurn(chat, line);
      await leader.idle();
      return script.calls.at(-1)!.options;
    };
    expect(await reply('"a"')).toMatchObject({ temperature: 0.9, topP: 1, minP: 0, repetitionPenalty: 1, maxTokens: 700 });

    await client.changeSettings({ sampler: { temperature: 0.7, topP: 0.95, minP: 0.05, repetitionPenalty: 1.1, maxTokens: 400 } });
    expect(await reply('"b"')).toMatchObject({ temperature: 0.7, topP: 0.95, minP: 0.05, repetitionPenalty: 1.1, maxTokens: 400 });

    await client.setChatSampler(chat, { temperature: 1.3, maxTokens: 200 });
    expect((await client.chatState(chat))!.sampler).toEqual({ temperature: 1.3, maxTokens: 200 });
    expect(await reply('"c"')).toMatchObject({ temperature: 1.3, topP: 0.95, minP: 0.05, repetitionPenalty: 1.1, maxTokens: 200 });

    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    await expect(client.setChatSampler(chat, { temperature: 5 })).rejects.toThrow(/temperature: up to 2/);
    await expect(client.setChatSampler(chat, { maxTokens: 1.5 })).rejects.toThrow(/maxTokens: a whole number/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(events);

    await client.setChatSampler(chat, {});
    expect((await client.chatState(chat))!.sampler).toBeNull();
    expect(await reply('"d"')).toMatchObject({ temperature: 0.7, maxTokens: 400 });
  });
});
