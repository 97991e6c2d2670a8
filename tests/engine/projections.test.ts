import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import type { TranscriptWindow } from '../../src/engine/queries/transcript.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { indexAllPendingMemories } from '../../src/engine/queries/search-index.ts';

let engine: Engine;
let db: Db;
let bot: string;
let chat: string;

const fts = (query: string) => {
  indexAllPendingMemories(db);
  return db.all<{ id: string }>(
    'SELECT m.id FROM memories_fts f JOIN memories m ON m.created_seq = f.rowid WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts)',
    [query],
  ).map((r) => r.id);
};

beforeEach(async () => {
  ({ engine, db } = await openTestEngine());
  bot = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
});

describe('authoring', () => {
  it('you_authored creates and then replaces the single "you"', () => {
    expect(engine.getYou()).toEqual({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.', avatar: null });
    engine.append([draft.you({ name: 'Ada Byron', persona: 'A mathematician.' })]);
    expect(engine.getYou()).toEqual({ name: 'Ada Byron', pronouns: 'she/her', persona: 'A mathematician.', avatar: null });
  });

  it('bot_authored creates a bot with every field, and a later one edits it in place', () => {
    expect(engine.getBot(bot)).toMatchObject({
      name: 'Mira',
      voiceSamples: ['"Hold fast."'],
      traits: ['wry', 'loyal'],
      backstory: 'Grew up on the docks.',
      initialRelationship: 'Old friends.',
      kickoff: 'The storm hits as you board.',
    });
    engine.append([draft.bot(bot, { name: 'Mira Vale', traits: ['stern'] })]);
    expect(engine.listBots().map((b) => [b.name, b.traits])).toEqual([['Mira Vale', ['stern']]]);
  });

  it('bot_reset makes the bot forget its memories and feelings everywhere, both ways, keeping who it is', () => {
    const other = engine.newId();
    engine.append([draft.chat(other, bot)]);
    engine.append([draft.memory(chat, engine.newId(), bot), draft.edge(chat, bot, 'you', { affinityDelta: 20 })]);
    engine.append([draft.memory(other, engine.newId(), bot), draft.edge(other, 'you', bot, { affinityDelta: 5 })]);
    engine.append([{ kind: 'bot_reset', payload: { botId: bot } }]);
    expect(db.all('SELECT * FROM memories')).toEqual([]);
    // Every edge involving the bot goes, whichever way it points (issue 11: "edges involving the bot").
    expect(db.all<{ source: string }>('SELECT source FROM edges')).toEqual([]);
    expect(engine.getBot(bot)?.name).toBe('Mira');
    expect(fts('map')).toEqual([]);
  });
});

describe('chats, clock, places, scenes, activity', () => {
  it('chat_created sets up the chat and its state', () => {
    expect(engine.listChats()).toMatchObject([
      { id: chat, title: 'Storm crossing', botId: bot, botName: 'Mira', fictionTime: '1890-05-01T20:00:00', lastReply: null },
    ]);
    expect(engine.chatState(chat)).toMatchObject({ weather: 'storm', narrativeAnchor: 'Reach the harbour.', scene: null });
  });

  it('clock_advanced moves only this chat\'s clock', () => {
    const other = engine.newId();
    engine.append([draft.chat(other, bot)]);
    engine.append([{ kind: 'clock_advanced', chatId: chat, payload: { minutes: 90, fictionTime: '1890-05-01T21:30:00' } }]);
    expect(engine.chatState(chat)?.fictionTime).toBe('1890-05-01T21:30:00');
    expect(engine.chatState(other)?.fictionTime).toBe('1890-05-01T20:00:00');
  });

  it('container_created, activity_change and scenes show in the drawer', () => {
    const ship = engine.newId();
    const cabin = engine.newId();
    const scene = engine.newId();
    engine.append([
      { kind: 'container_created', chatId: chat, payload: { containerId: ship, name: 'The Gull', type: 'ship', properties: { moving: true }, parentId: null } },
      { kind: 'container_created', chatId: chat, payload: { containerId: cabin, name: 'Cabin', type: 'room', properties: { public: false, audibleRange: 'room' }, parentId: ship } },
      {
        kind: 'activity_change',
        chatId: chat,
        payload: {
          entity: bot,
          containerId: cabin,
          slot: 'at the chart table',
          posture: 'standing',
          action: { verb: 'plotting a course', interruptible: true, requiredAttention: 'medium', expectedMinutes: 30 },
          attention: 'the charts',
          holding: ['compass'],
          status: 'present',
        },
      },
      { kind: 'scene_opened', chatId: chat, payload: { sceneId: scene, containerId: cabin, participants: ['you', bot], fictionTime: '1890-05-01T20:00:00' } },
    ]);
    const drawer = engine.chatState(chat)!;
    expect(drawer.place).toEqual({ id: cabin, name: 'Cabin', type: 'room', properties: { public: false, audibleRange: 'room' }, parentId: ship });
    expect(drawer.scene).toEqual({ id: scene, participants: ['you', bot], openedFictionTime: '1890-05-01T20:00:00' });
    expect(drawer.activities).toEqual([
      {
        entity: bot,
        containerId: cabin,
        slot: 'at the chart table',
        posture: 'standing',
        action: { verb: 'plotting a course', interruptible: true, requiredAttention: 'medium', expectedMinutes: 30 },
        attention: 'the charts',
        status: 'present',
        muted: false,
      },
    ]);
    // An older log's "holding" list folds into items: the one record of who has what.
    expect(drawer.items).toEqual([{ id: `held:${bot}:compass`, name: 'compass', holder: bot, where: '', state: '' }]);

    engine.append([
      { kind: 'scene_closed', chatId: chat, payload: { sceneId: scene, significance: 2, reason: 'parting', fictionTime: '1890-05-01T22:00:00' } },
    ]);
    expect(engine.chatState(chat)?.scene).toBeNull();
    expect(db.get('SELECT significance, close_reason, closed_fiction_time FROM scenes')).toEqual({
      significance: 2,
      close_reason: 'parting',
      closed_fiction_time: '1890-05-01T22:00:00',
    });
  });
});

describe('edges', () => {
  const edge = () => engine.chatState(chat)!.edges.find((e) => e.source === bot && e.target === 'you');

  it('start at 50, move by deltas and clamp to 0..100, directed per pair', () => {
    engine.append([draft.edge(chat, bot, 'you', { affinityDelta: 10, trustDelta: -5 })]);
    expect(edge()).toMatchObject({ affinity: 60, trust: 45 });
    engine.append([draft.edge(chat, bot, 'you', { affinityDelta: 80, trustDelta: -80 })]);
    expect(edge()).toMatchObject({ affinity: 100, trust: 0 });
    engine.append([draft.edge(chat, bot, 'you', { affinityDelta: -15 })]);
    expect(edge()).toMatchObject({ affinity: 85, trust: 0 });
    expect(engine.chatState(chat)!.edges.find((e) => e.source === 'you')).toBeUndefined();
  });

  it('append knowledge facts without duplicates (case, spacing, final stop ignored)', () => {
    engine.append([draft.edge(chat, bot, 'you', { facts: ['Ada fears water.', 'Ada has a map'], lastInteraction: '1890-05-01T20:10:00' })]);
    engine.append([draft.edge(chat, bot, 'you', { facts: ['ada  fears water', 'Ada is left-handed.'] })]);
    expect(edge()).toMatchObject({
      knowledge: ['Ada fears water.', 'Ada has a map', 'Ada is left-handed.'],
      lastInteraction: '1890-05-01T20:10:00',
    });
  });

  it('edge_summary_rewritten replaces the summary and keeps the scores', () => {
    engine.append([draft.edge(chat, bot, 'you', { affinityDelta: 7 })]);
    engine.append([{ kind: 'edge_summary_rewritten', chatId: chat, payload: { source: bot, target: 'you', summary: 'Trusts Ada with the helm.' } }]);
    expect(edge()).toMatchObject({ affinity: 57, summary: 'Trusts Ada with the helm.' });
  });

  it('rejects deltas outside the schema bounds', () => {
    expect(() => engine.append([draft.edge(chat, bot, 'you', { affinityDelta: 500 })])).toThrow(/affinityDelta/);
  });
});

describe('memories', () => {
  it('memory_written stores the witness flags and feeds the full-text index', () => {
    const m = engine.newId();
    engine.append([draft.memory(chat, m, bot, { witness: { you: true, host: false, guest: true }, significance: 2 })]);
    expect(engine.chatState(chat)!.memories).toMatchObject([
      { id: m, witness: { you: true, host: false, guest: true }, significance: 2, pinned: false },
    ]);
    expect(fts('boots')).toEqual([m]); // porter stemming: "boot" matches "boots"
  });

  it('significance, pin and summary changes update the memory and the index', () => {
    const m = engine.newId();
    engine.append([draft.memory(chat, m, bot)]);
    engine.append([
      { kind: 'memory_significance_set', chatId: chat, payload: { memoryId: m, significance: 3 } },
      { kind: 'memory_pin_changed', chatId: chat, payload: { memoryId: m, pinned: true, auto: true } },
      { kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: m, summary: 'Ada swore an oath at the mast.' } },
    ]);
    expect(engine.chatState(chat)!.memories[0]).toMatchObject({ significance: 3, pinned: true, autoPinned: true, summary: 'Ada swore an oath at the mast.' });
    expect(engine.chatState(chat)!.pinned).toEqual({ count: 1, cap: 8 });
    expect(fts('map')).toEqual([]);
    expect(fts('oath')).toEqual([m]);
    engine.append([{ kind: 'memory_pin_changed', chatId: chat, payload: { memoryId: m, pinned: false, auto: false } }]);
    expect(engine.chatState(chat)!.pinned.count).toBe(0);
  });
});

describe('turns and the transcript', () => {
  it('shows user and assistant turns in order, streaming until finished, with usage', () => {
    const u = engine.newId();
    const a = engine.newId();
    engine.append([draft.userTurn(chat, u, '*waves* "Ahoy!" ((brb))')]);
    engine.append([draft.assistantStarted(chat, a, bot)]);
    expect(engine.transcript(chat).turns.map((t) => [t.role, t.status, t.speakerName])).toEqual([
      ['user', 'done', 'Ada'],
      ['assistant', 'streaming', 'Mira'],
    ]);
    engine.append([draft.assistantTurn(chat, a, bot, 'Mira grins.\nThe wind howls.')]);
    const [, reply] = engine.transcript(chat).turns;
    expect(reply).toMatchObject({ status: 'done', text: 'Mira grins.\nThe wind howls.', promptTokens: 100, completionTokens: 20 });
    expect(engine.listChats()[0]?.lastReply).toBe('Mira grins.');
  });

  it('keeps a truncated reply with its reason, and refuses a truncation without one', () => {
    const a = engine.newId();
    engine.append([draft.assistantStarted(chat, a, bot)]);
    engine.append([draft.assistantTurn(chat, a, bot, 'Mira be', { truncated: true, reason: 'stopped', usage: null })]);
    expect(engine.transcript(chat).turns[0]).toMatchObject({ status: 'truncated', reason: 'stopped', text: 'Mira be' });
    expect(() => engine.append([draft.assistantTurn(chat, engine.newId(), bot, 'x', { truncated: true, reason: null })])).toThrow(
      /truncated turn needs a reason/,
    );
  });

  it('pages a long transcript newest last, with a cursor to older pages', () => {
    const ids = Array.from({ length: 25 }, () => engine.newId());
    for (const [i, id] of ids.entries()) engine.append([draft.userTurn(chat, id, `line ${i}`)]);
    const newest = engine.transcript(chat, { limit: 10 });
    expect(newest.turns.map((t) => t.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${15 + i}`));
    const older = engine.transcript(chat, { limit: 10, beforeSeq: newest.olderCursor });
    expect(older.turns.map((t) => t.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${5 + i}`));
    const oldest = engine.transcript(chat, { limit: 10, beforeSeq: older.olderCursor });
    expect(oldest.turns.map((t) => t.text)).toEqual(Array.from({ length: 5 }, (_, i) => `line ${i}`));
    expect(oldest.olderCursor).toBeNull();
  });

  it('opens a window anywhere in the story, pages on from it both ways, and knows its place', () => {
    const ids = Array.from({ length: 25 }, () => engine.newId());
    for (const [i, id] of ids.entries()) engine.append([draft.userTurn(chat, id, `line ${i}`)]);
    const texts = (page: { turns: { text: string }[] }) => page.turns.map((t) => t.text);
    expect(engine.transcriptLength(chat)).toBe(25);

    const start = engine.transcriptWindow(chat, { index: 0 }, 8);
    expect(texts(start)).toEqual(Array.from({ length: 8 }, (_, i) => `line ${i}`));
    expect(start).toMatchObject({ firstIndex: 0, olderCursor: null, targetSeq: start.turns[0]!.seq });
    const next = engine.transcript(chat, { afterSeq: start.newerCursor, limit: 8 });
    expect(texts(next)).toEqual(Array.from({ length: 8 }, (_, i) => `line ${8 + i}`));
    // It knows turns lie before it, so the view pages back from it too.
    expect(next.olderCursor).toBe(next.turns[0]!.seq);

    // A turn in the middle opens with a few before it for context, the rest after.
    const middle = engine.transcriptWindow(chat, { index: 12 }, 8);
    expect(texts(middle)).toEqual(Array.from({ length: 8 }, (_, i) => `line ${10 + i}`));
    expect(middle.firstIndex).toBe(10);
    expect(middle.targetSeq).toBe(engine.transcriptWindow(chat, { seq: middle.targetSeq! }, 8).targetSeq);

    // Past the end, the last page: it reaches the end, so there is nothing newer to load.
    const end = engine.transcriptWindow(chat, { index: 999 }, 8);
    expect(texts(end).at(-1)).toBe('line 24');
    expect(end.newerCursor).toBeNull();
    expect(engine.transcript(chat, { afterSeq: end.turns.at(-1)!.seq }).turns).toEqual([]);
  });

  it('opens a window at a moment in real time and in story time', () => {
    // An imported chat's turns carry when they were sent; a turn played here has its event's time.
    const sentTurn = (text: string, sentAt: number): EventDraft => ({ kind: 'user_turn', chatId: chat, payload: { turnId: engine.newId(), text, segments: [], sentAt } });
    const scene = (day: number): EventDraft => ({
      kind: 'scene_opened',
      chatId: chat,
      payload: { sceneId: engine.newId(), containerId: null, participants: ['you', bot], fictionTime: `1890-05-0${day}T20:00:00` },
    });
    for (let i = 0; i < 6; i++) {
      if (i === 0 || i === 3) engine.append([scene(i === 0 ? 1 : 3)]);
      engine.append([sentTurn(`line ${i}`, Date.UTC(2026, 0, 1 + i))]);
    }
    const target = (page: TranscriptWindow) => page.turns.find((t) => t.seq === page.targetSeq)?.text;
    expect(target(engine.transcriptWindow(chat, { sentAt: Date.UTC(2026, 0, 3, 12) }, 4))).toBe('line 3');
    expect(target(engine.transcriptWindow(chat, { sentAt: Date.UTC(2030, 0, 1) }, 4))).toBe('line 5');
    // Story time: the scene that opened on or after the date, past them all the last one.
    expect(target(engine.transcriptWindow(chat, { storyTime: '1890-05-02' }, 4))).toBe('line 3');
    expect(target(engine.transcriptWindow(chat, { storyTime: '0001-01-01' }, 4))).toBe('line 0');
    expect(target(engine.transcriptWindow(chat, { storyTime: '1999-01-01' }, 4))).toBe('line 3');
  });

  it('lists chats newest activity first', () => {
    const second = engine.newId();
    engine.append([draft.chat(second, bot, { title: 'Second' })]);
    expect(engine.listChats().map((c) => c.title)).toEqual(['Second', 'Storm crossing']);
    engine.append([draft.userTurn(chat, engine.newId())]);
    expect(engine.listChats().map((c) => c.title)).toEqual(['Storm crossing', 'Second']);
  });
});

describe('manual edits', () => {
  it('edit bots, you, chat state, edges, memories and turns', () => {
    const m = engine.newId();
    const u = engine.newId();
    engine.append([draft.memory(chat, m, bot), draft.edge(chat, bot, 'you'), draft.userTurn(chat, u, 'Helo.')]);
    engine.append([
      { kind: 'manual_edit', payload: { target: { type: 'bot', id: bot }, field: 'traits', prior: ['wry', 'loyal'], value: ['wry'] } },
      { kind: 'manual_edit', payload: { target: { type: 'you' }, field: 'pronouns', prior: 'she/her', value: 'they/them' } },
      { kind: 'manual_edit', chatId: chat, payload: { target: { type: 'chat_state' }, field: 'weather', prior: 'storm', value: 'fog' } },
      { kind: 'manual_edit', chatId: chat, payload: { target: { type: 'edge', source: bot, target: 'you' }, field: 'trust', prior: 50, value: 90 } },
      { kind: 'manual_edit', chatId: chat, payload: { target: { type: 'memory', id: m }, field: 'summary', prior: '', value: 'Ada kept the map.' } },
      { kind: 'manual_edit', chatId: chat, payload: { target: { type: 'turn', id: u }, field: 'text', prior: 'Helo.', value: 'Hello.' } },
    ]);
    expect(engine.getBot(bot)?.traits).toEqual(['wry']);
    expect(engine.getYou()?.pronouns).toBe('they/them');
    const drawer = engine.chatState(chat)!;
    expect(drawer.weather).toBe('fog');
    expect(drawer.edges[0]).toMatchObject({ trust: 90, affinity: 50 });
    expect(drawer.memories[0]?.summary).toBe('Ada kept the map.');
    expect(fts('kept')).toEqual([m]);
    expect(engine.transcript(chat).turns[0]?.text).toBe('Hello.');
  });

  it('refuses fields that are not editable and values that break the field\'s rule', () => {
    const before = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    expect(() =>
      engine.append([{ kind: 'manual_edit', payload: { target: { type: 'bot', id: bot }, field: 'created_seq', prior: 1, value: 9 } }]),
    ).toThrow(/"created_seq" cannot be edited on a bot; editable: name, pronouns, persona/);
    expect(() =>
      engine.append([{ kind: 'manual_edit', chatId: chat, payload: { target: { type: 'edge', source: bot, target: 'you' }, field: 'trust', prior: 50, value: 150 } }]),
    ).toThrow(/value: Too big/i);
    expect(() =>
      engine.append([{ kind: 'manual_edit', payload: { target: { type: 'chat_state' }, field: 'weather', prior: '', value: 'x' } }]),
    ).toThrow(/needs its id/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(before);
  });
});

describe('classifier failures', () => {
  it('are recorded per chat or globally with the raw text, error and attempts', () => {
    engine.append([
      { kind: 'classifier_failed', chatId: chat, payload: { task: 'analysis', model: 'm', raw: '{"oops', error: 'invalid JSON', attempts: 2 } },
      { kind: 'classifier_failed', payload: { task: 'kickoff', model: 'm', raw: '', error: 'timeout', attempts: 1 } },
    ]);
    expect(db.all('SELECT chat_id, task, raw, error, attempts FROM classifier_failures ORDER BY seq')).toEqual([
      { chat_id: chat, task: 'analysis', raw: '{"oops', error: 'invalid JSON', attempts: 2 },
      { chat_id: null, task: 'kickoff', raw: '', error: 'timeout', attempts: 1 },
    ]);
  });
});
