import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { changeKey, defineEvent, type ValueChange } from '../events/define.ts';
import { entityRef, requiredText, shortText, uuid } from '../events/fields.ts';
import { defineTrackedValue, trackedKey } from './tracked-value.ts';

export const ITEM_NAME = 80;
export const ITEM_TEXT = 120;

/** Who has an item: you, a bot, or nobody (lying somewhere: `where` says). */
const holder = z.union([entityRef, z.literal('')]);
/** An item's id: a UUID, or `held:<entity>:<name>` for one an older log's `activity.holding` listed. */
const itemId = z.string().min(1).max(200);

/** An item came into the story: by the analysis of a reply, the kickoff, or the player in the drawer. */
export const itemNoted = defineEvent({
  kind: 'item_noted',
  writes: ['items'],
  scope: 'chat',
  schema: z.object({ itemId: uuid, name: requiredText(ITEM_NAME), holder, where: shortText(ITEM_TEXT), state: shortText(ITEM_TEXT) }),
  apply(db, { seq, chatId, payload: p }) {
    insertItem(db, chatId, { id: p.itemId, name: p.name, holder: p.holder, where: p.where, state: p.state }, seq);
  },
  changes: (p): ValueChange[] => [{ target: trackedKey('item', p.itemId), field: 'name', how: 'create', value: p.name }],
  without: () => null,
});

const ITEM_PARTS = ['holder', 'where', 'state', 'gone'] as const;

/** An item changed hands, moved, changed state, or left the story (used up, lost, destroyed): only what changed is named. */
export const itemChanged = defineEvent({
  kind: 'item_changed',
  writes: ['items'],
  scope: 'chat',
  schema: z.object({ itemId, holder: holder.optional(), where: shortText(ITEM_TEXT).optional(), state: shortText(ITEM_TEXT).optional(), gone: z.boolean().optional() }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `UPDATE items SET holder = coalesce(?, holder), place = coalesce(?, place), state = coalesce(?, state), gone = coalesce(?, gone), updated_seq = ?
       WHERE chat_id = ? AND id = ?`,
      [p.holder ?? null, p.where ?? null, p.state ?? null, p.gone === undefined ? null : p.gone ? 1 : 0, seq, chatId, p.itemId],
    );
  },
  changes: (p): ValueChange[] =>
    ITEM_PARTS.filter((part) => p[part] !== undefined).map((part) => ({ target: trackedKey('item', p.itemId), field: part, how: 'set', value: p[part] })),
  without(p, undone) {
    const kept = { ...p };
    for (const part of ITEM_PARTS) if (undone.has(changeKey({ target: trackedKey('item', p.itemId), field: part }))) delete kept[part];
    return kept;
  },
});

/**
 * What each character carries or owns, and what lies about (issue 33, part 3): an item, who holds
 * it, where it is, its state. Noted and moved by the same one analysis call per reply, added and
 * edited in the drawer, told to the narrator. The one truth of what someone holds: the activity's
 * old `holding` list becomes items (`activity_change` folds it in).
 */
export const items = defineTrackedValue({
  target: 'item',
  table: 'items',
  chatColumn: 'chat_id',
  key: { id: { column: 'id', schema: itemId } },
  fields: {
    name: { column: 'name', schema: requiredText(ITEM_NAME) },
    holder: { column: 'holder', schema: holder },
    where: { column: 'place', schema: shortText(ITEM_TEXT) },
    state: { column: 'state', schema: shortText(ITEM_TEXT) },
    gone: { column: 'gone', schema: z.union([z.literal(0), z.literal(1)]) },
  },
  clearedByHostReset: true,
  events: [itemNoted, itemChanged],
});

export interface Item {
  id: string;
  name: string;
  /** 'you', a bot's id, or '' for nobody. */
  holder: string;
  where: string;
  state: string;
}

/** An item's row, as it came into the story (an item already there stays as it is). */
export function insertItem(db: Db, chatId: string | null, item: Item, seq: number): void {
  db.run(
    `INSERT INTO items (chat_id, id, name, holder, place, state, gone, created_seq, updated_seq) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)
     ON CONFLICT (chat_id, id) DO NOTHING`,
    [chatId, item.id, item.name, item.holder, item.where, item.state, seq, seq],
  );
}

/** An item an older log's activity listed as held: named by its holder and its words, so listing it again is the same item. */
export const heldItemId = (entity: string, name: string) => `held:${entity}:${name.trim().toLowerCase()}`.slice(0, 200);

/** An item as the classifier and the narrator read it: "silver key (Mira has it; in her coat pocket; tarnished)". */
export function describeItem(item: { name: string; holder: string; where: string; state: string }, nameOf: (ref: string) => string): string {
  const parts = [item.holder ? `${nameOf(item.holder)} has it` : 'nobody has it', item.where, item.state].filter(Boolean);
  return `${item.name} (${parts.join('; ')})`;
}
