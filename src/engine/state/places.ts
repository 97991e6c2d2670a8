import { z } from 'zod';
import { defineEvent, json, type ValueChange } from '../events/define.ts';
import { requiredText, uuid } from '../events/fields.ts';
import { defineTrackedValue, trackedKey } from './tracked-value.ts';

/** A place: a room, a vehicle, a street. Containers nest (a booth inside a tavern). */
export const containerCreated = defineEvent({
  kind: 'container_created',
  writes: ['containers'],
  scope: 'chat',
  schema: z.object({
    containerId: uuid,
    name: requiredText(120),
    type: requiredText(60),
    properties: z.record(z.string().max(60), z.union([z.string().max(500), z.number(), z.boolean()])),
    parentId: uuid.nullable(),
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO containers (id, chat_id, name, type, properties, parent_id, created_seq) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id, id) DO UPDATE SET name = excluded.name, type = excluded.type,
         properties = excluded.properties, parent_id = excluded.parent_id`,
      [p.containerId, chatId, p.name, p.type, json(p.properties), p.parentId, seq],
    );
  },
  // "Why?" on a place: the turn that took the story there (or the opening scene).
  changes: (p): ValueChange[] => [{ target: trackedKey('container', p.containerId), field: 'name', how: 'create', value: p.name }],
  without: () => null,
});

/**
 * The places of a story: made by the kickoff and by the analysis when the story moves somewhere
 * new (`newPlace`), shown in the drawer's "When and where", their name and kind editable there.
 */
export const places = defineTrackedValue({
  target: 'container',
  table: 'containers',
  chatColumn: 'chat_id',
  key: { id: { column: 'id', schema: uuid } },
  fields: { name: { column: 'name', schema: requiredText(120) }, type: { column: 'type', schema: requiredText(60) } },
  clearedByHostReset: true,
  events: [containerCreated],
});
