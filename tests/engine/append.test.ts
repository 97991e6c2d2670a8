import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { EventValidationError, UnknownEventKindError } from '../../src/engine/log/errors.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

let engine: Engine;
let db: Db;
const count = (table: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)!.n;

beforeEach(async () => {
  ({ engine, db } = await openTestEngine());
});

describe('appending events', () => {
  it('stores seq, a UUIDv7 id, ts, kind, chat id and the validated payload', () => {
    const bot = engine.newId();
    const [event] = engine.append([draft.bot(bot, { name: '  Mira  ' })]);
    expect(event!.seq).toBe(1);
    expect(event!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const row = db.get<{ kind: string; chat_id: string | null; payload: string; ts: number }>('SELECT * FROM events')!;
    expect(row.kind).toBe('bot_authored');
    expect(row.chat_id).toBeNull();
    expect(row.ts).toBe(Date.UTC(2026, 0, 1));
    expect(JSON.parse(row.payload).name).toBe('Mira'); // trimmed by the schema before it was stored
  });

  it('rejects an unknown kind with a clear error and writes nothing', () => {
    expect(() => engine.append([{ kind: 'bot_teleported', payload: {} } as unknown as EventDraft])).toThrow(UnknownEventKindError);
    expect(() => engine.append([{ kind: 'bot_teleported', payload: {} } as unknown as EventDraft])).toThrow(/Unknown event kind "bot_teleported"/);
    expect(count('events')).toBe(0);
  });

  it('rejects an invalid payload naming the field, and writes nothing', () => {
    const bad = draft.bot(engine.newId(), { name: '', traits: 'not a list' });
    const error = (() => {
      try {
        engine.append([bad]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EventValidationError);
    expect((error as Error).message).toMatch(/Invalid bot_authored event: .*name: must not be empty/);
    expect((error as Error).message).toMatch(/traits/);
    expect(count('events')).toBe(0);
    expect(count('bots')).toBe(0);
  });

  it('is all or nothing: a bad event late in a command leaves no trace of the earlier ones', () => {
    const bot = engine.newId();
    const chat = engine.newId();
    expect(() =>
      engine.append([draft.bot(bot), draft.chat(chat, bot), draft.edge(chat, bot, bot)]), // an edge to itself is invalid
    ).toThrow(/an edge joins two different entities/);
    expect(count('events')).toBe(0);
    expect(count('bots')).toBe(0);
    expect(count('chats')).toBe(0);
  });

  it('enforces scope: chat events need a chat id, global events refuse one', () => {
    const bot = engine.newId();
    const noChat = { ...draft.chat(engine.newId(), bot), chatId: null };
    expect(() => engine.append([noChat])).toThrow(/chatId: this event belongs to a chat/);
    expect(() => engine.append([{ ...draft.bot(bot), chatId: engine.newId() }])).toThrow(/global and takes no chat id/);
    expect(count('events')).toBe(0);
  });

  it('applies a re-sent command once (same command id) and answers as it did the first time', () => {
    const { botId: _, ...fields } = draft.bot('unused').payload as { botId: string };
    const first = engine.as('command-1').saveBot(fields, null);
    const again = engine.as('command-1').saveBot(fields, null);
    expect(again).toBe(first);
    expect(count('events')).toBe(1);
    expect(engine.listBots().map((b) => b.id)).toEqual([first]);
    // A command id the log already holds is refused outright, and nothing is written.
    expect(() => engine.append([draft.you(), { ...draft.chat(engine.newId(), first), commandId: 'command-1' }])).toThrow(/UNIQUE/);
    expect(count('events')).toBe(1);
  });

  it('refuses a bot form that breaks the rules, naming the field, and writes nothing', () => {
    const { botId: _, ...fields } = draft.bot('unused').payload as { botId: string };
    expect(() => engine.saveBot({ ...fields, name: '  ' }, null)).toThrow(/name: /);
    expect(() => engine.saveBot(fields, engine.newId())).toThrow(/no longer exists/);
    expect(() => engine.saveYou({ name: 'Ada', pronouns: 'x'.repeat(41), persona: '' })).toThrow(/pronouns: /);
    expect(count('events')).toBe(0);
  });

  it('links derived events to their cause, within one command or across commands', () => {
    const bot = engine.newId();
    const chat = engine.newId();
    const turn = engine.newId();
    engine.append([draft.bot(bot), draft.chat(chat, bot)]);
    const [, finished, edge] = engine.append([
      draft.assistantStarted(chat, turn, bot),
      draft.assistantTurn(chat, turn, bot, 'The deck heaves.'),
      { ...draft.edge(chat, bot, 'you', { affinityDelta: 3 }), causeDraft: 1 },
    ]);
    expect(edge!.causeId).toBe(finished!.id);
    const [later] = engine.append([{ ...draft.edge(chat, bot, 'you'), causeId: finished!.id }]);
    expect(db.get<{ cause_id: string }>('SELECT cause_id FROM events WHERE seq = ?', [later!.seq])!.cause_id).toBe(finished!.id);
  });

  it('makes ids that sort in creation order', () => {
    const ids = Array.from({ length: 5000 }, () => engine.newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
