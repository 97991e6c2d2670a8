import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import { openStory } from '../support/story.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;

beforeEach(async () => {
  ({ engine, db, bot, chat } = await openStory());
  engine.append([{ ...draft.edge(chat, bot, 'you', { facts: ['Ada hums when nervous.'] }) }]);
});

const state = () => engine.chatState(chat)!;
const events = () => db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
const edit = (target: Record<string, unknown>, field: string, value: unknown) => engine.editState(chat, target as never, field, value);

describe('drawer edits', () => {
  it('every value the drawer shows can be set by hand; each is one manual_edit with the prior value, marked "edited by you"', () => {
    const place = state().place!;
    const memory = state().memories[0]!;
    edit({ type: 'container', id: place.id }, 'name', 'The Sea Gull');
    edit({ type: 'container', id: place.id }, 'type', 'schooner');
    edit({ type: 'chat_state' }, 'weather', 'fog');
    edit({ type: 'chat_state' }, 'narrativeAnchor', 'Find the island.');
    edit({ type: 'activity', entity: bot }, 'doing', 'mending a sail');
    edit({ type: 'activity', entity: bot }, 'posture', 'kneeling');
    edit({ type: 'activity', entity: bot }, 'attention', 'the sail');
    edit({ type: 'edge', source: bot, target: 'you' }, 'affinity', 80);
    edit({ type: 'edge', source: bot, target: 'you' }, 'trust', 12);
    edit({ type: 'edge', source: bot, target: 'you' }, 'summary', 'Wary but fond.');
    edit({ type: 'edge', source: bot, target: 'you' }, 'knowledge', ['Ada hums when nervous.', 'Ada cannot swim.']);
    edit({ type: 'memory', id: memory.id }, 'summary', 'Mira remembers the storm differently.');
    edit({ type: 'memory', id: memory.id }, 'significance', 3);

    const s = state();
    expect(s.place).toMatchObject({ name: 'The Sea Gull', type: 'schooner' });
    expect(s).toMatchObject({ weather: 'fog', narrativeAnchor: 'Find the island.' });
    expect(s.activities.find((a) => a.entity === bot)).toMatchObject({ posture: 'kneeling', attention: 'the sail', action: { verb: 'mending a sail' } });
    expect(s.edges.find((e) => e.source === bot)).toMatchObject({ affinity: 80, trust: 12, summary: 'Wary but fond.', knowledge: ['Ada hums when nervous.', 'Ada cannot swim.'] });
    expect(s.memories.find((m) => m.id === memory.id)).toMatchObject({ summary: 'Mira remembers the storm differently.', significance: 3 });
    expect(s.edited).toEqual(
      expect.arrayContaining([`edge:${bot}:you:affinity`, `edge:${bot}:you:knowledge`, `activity:${bot}:doing`, `memory:${memory.id}:significance`, 'chat_state:weather', `container:${place.id}:name`]),
    );
    const affinityEdit = db.get<{ payload: string }>("SELECT payload FROM events WHERE kind = 'manual_edit' AND json_extract(payload, '$.field') = 'affinity'")!;
    expect(JSON.parse(affinityEdit.payload)).toMatchObject({ prior: 50, value: 80 });
  });

  it('refuses a value out of range or empty, with the rule, and writes nothing', () => {
    const before = events();
    const place = state().place!;
    expect(() => edit({ type: 'edge', source: bot, target: 'you' }, 'affinity', 150)).toThrow(/100/);
    expect(() => edit({ type: 'container', id: place.id }, 'name', '   ')).toThrow(/must not be empty/);
    expect(() => edit({ type: 'memory', id: state().memories[0]!.id }, 'significance', 4)).toThrow(/3/);
    expect(() => edit({ type: 'memory', id: engine.newId() }, 'summary', 'x')).toThrow(/no longer in the story/);
    expect(events()).toBe(before);
  });

  it('the latest edit can be undone; when the story moves a value itself its mark goes', () => {
    edit({ type: 'chat_state' }, 'weather', 'fog');
    edit({ type: 'edge', source: bot, target: 'you' }, 'affinity', 90);
    expect(state().lastEdit).toBe('affinity');
    engine.undoStateEdit(chat);
    expect(state().edges.find((e) => e.source === bot)!.affinity).toBe(50);
    expect(state().edited).toEqual(['chat_state:weather']);
    expect(state().lastEdit).toBe('weather');
    engine.undoStateEdit(chat);
    expect(state().weather).toBe('storm');
    expect(() => engine.undoStateEdit(chat)).toThrow(/no edit to undo/);

    edit({ type: 'edge', source: bot, target: 'you' }, 'affinity', 70);
    engine.append([draft.edge(chat, bot, 'you', { affinityDelta: 5 })]);
    expect(state().edges.find((e) => e.source === bot)!.affinity).toBe(75);
    expect(state().edited).toEqual([]);
  });
});
