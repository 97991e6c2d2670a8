import { describe, expect, it } from 'vitest';
import { API } from '../../src/engine/api.ts';
import { CHAT_COLUMN, definitionOf, EVENT_DEFINITIONS, PROJECTED_TABLES } from '../../src/engine/events/registry.ts';
import { TRACKED_VALUES } from '../../src/engine/state/tracked-values.ts';
import { openStory } from '../support/story.ts';

/**
 * A kind of story state is declared once (`state/tracked-value.ts`); these are the registrations
 * that follow from the declaration, which used to be listed by hand in ten places.
 */
describe('a tracked value', () => {
  it.each(TRACKED_VALUES.map((value) => [value.table, value] as const))('%s is projected, rebuilt per chat, read by the drawer, editable, reset and purged', (table, value) => {
    expect(PROJECTED_TABLES).toContain(table);
    // Rewind, regenerate, branch and a merge rebuild one chat through this column.
    expect(CHAT_COLUMN[table]).toBe(value.chatColumn);
    expect(API.chatState.reads).toContain(table);
    expect(definitionOf('manual_edit')!.writes).toContain(table);
    expect(definitionOf('purged')!.writes).toContain(table);
    expect(definitionOf('bot_reset')!.writes.includes(table)).toBe(value.clearedByHostReset);
    for (const event of value.events) expect(EVENT_DEFINITIONS).toContain(event);
  });

  it('places, declared so: an edit is checked by its field rule, takes its prior value, marks it, and is undone; a reset clears them; a rewind takes a new one away', async () => {
    const { engine, chat, bot } = await openStory();
    const place = engine.chatState(chat)!.place!;
    expect(() => engine.editState(chat, { type: 'container', id: place.id }, 'name', '')).toThrow(/must not be empty/);
    const head = engine.headSeq();
    expect(() => engine.editState(chat, { type: 'container', id: place.id }, 'properties', {})).toThrow();
    expect(engine.headSeq()).toBe(head);
    engine.editState(chat, { type: 'container', id: place.id }, 'name', '  The Sea Gull ');
    const edit = engine.exportLog().events.filter((e) => e.kind === 'manual_edit').at(-1)!;
    expect(JSON.parse(edit.payload)).toMatchObject({ prior: place.name, value: 'The Sea Gull' });
    expect(engine.chatState(chat)!.place!.name).toBe('The Sea Gull');
    expect(engine.chatState(chat)!.edited).toContain(`container:${place.id}:name`);
    engine.undoStateEdit(chat);
    expect(engine.chatState(chat)!.place!.name).toBe(place.name);
    expect(engine.chatState(chat)!.edited).not.toContain(`container:${place.id}:name`);

    // A place made after a point goes with a rewind to it, and comes back with its undo.
    const before = engine.headSeq();
    engine.append([{ kind: 'user_turn', chatId: chat, payload: { turnId: engine.newId(), text: 'We row ashore.', segments: [{ type: 'action', text: 'We row ashore.' }] } } as never]);
    const shore = engine.newId();
    engine.append([{ kind: 'container_created', chatId: chat, payload: { containerId: shore, name: 'The shore', type: 'beach', properties: {}, parentId: null } }]);
    const count = () => engine.ctx.db.get<{ n: number }>('SELECT count(*) AS n FROM containers WHERE chat_id = ?', [chat])!.n;
    expect(count()).toBe(2);
    const { seq } = engine.rewind(chat, before + 1);
    expect(count()).toBe(1);
    engine.undoRewind(chat, seq);
    expect(count()).toBe(2);

    engine.resetBot(bot, 'Mira');
    expect(count()).toBe(0);
  });
});
