import { z } from 'zod';
import type { Db, SqlParam } from '../db/port.ts';
import { defineEvent, json, type ValueChange } from './define.ts';
import { addFacts } from './edges.ts';
import { eventId, fictionTime, uuid, entityRef, longText, requiredText, shortText } from './fields.ts';
import { supersede } from '../log/visibility.ts';
import { editKey, markEdited, type EditTarget } from './edit-marks.ts';
import { TRACKED_TABLES, TRACKED_VALUES, trackedValueOf } from '../state/tracked-values.ts';
import { targetSchema, whereOf } from '../state/tracked-value.ts';
import { REPLY_ORDERS } from '../turn/reply-order.ts';
import { chatKeyOf, storedTable } from './tables.ts';

/**
 * A user's direct correction of projected state ("she is not angry", "fix this line"). Each
 * editable field is listed here with the schema its new value must pass and where it lives, so an
 * edit can never reach a column that is not meant to be edited by hand.
 */
const stringList = z.array(z.string().trim().min(1).max(2_000)).max(40);
const score = z.number().min(0).max(100);

const targets = {
  you: { table: 'you', fields: { name: requiredText(80), pronouns: shortText(40), persona: longText } },
  bot: {
    table: 'bots',
    fields: {
      name: requiredText(80),
      pronouns: shortText(40),
      persona: longText,
      backstory: longText,
      initialRelationship: shortText(2_000),
      kickoff: longText,
      voiceSamples: stringList,
      traits: stringList,
    },
  },
  chat: { table: 'chats', fields: { title: requiredText(120) } },
  chat_state: {
    table: 'chat_state',
    fields: { weather: shortText(200), narrativeAnchor: shortText(2_000), directorNote: shortText(2_000), replyOrder: z.enum(REPLY_ORDERS), fictionTime },
  },
  edge: { table: 'edges', fields: { affinity: score, trust: score, summary: shortText(4_000), knowledge: stringList } },
  memory: { table: 'memories', fields: { summary: requiredText(4_000), significance: z.number().int().min(0).max(3) } },
  turn: { table: 'transcript', fields: { text: z.string().max(100_000) } },
  activity: {
    table: 'activity',
    fields: { slot: shortText(80), posture: shortText(80), attention: shortText(200), doing: shortText(120), muted: z.union([z.literal(0), z.literal(1)]) },
  },
} as const satisfies Record<string, { table: string; fields: Record<string, z.ZodType> }>;

/** A tracked value's editable fields, as the core targets list theirs. */
const trackedFields = (type: string): Record<string, z.ZodType> | undefined => {
  const value = trackedValueOf(type);
  return value && Object.fromEntries(Object.entries(value.fields).map(([name, field]) => [name, field.schema]));
};
const fieldsOf = (type: string): Record<string, z.ZodType> => (Object.hasOwn(targets, type) ? targets[type as keyof typeof targets].fields : (trackedFields(type) ?? {}));

type TargetType = keyof typeof targets;

const target = z.discriminatedUnion('type', [
  z.object({ type: z.literal('you') }),
  z.object({ type: z.literal('bot'), id: uuid }),
  z.object({ type: z.literal('chat') }),
  z.object({ type: z.literal('chat_state') }),
  z.object({ type: z.literal('edge'), source: entityRef, target: entityRef }),
  z.object({ type: z.literal('memory'), id: uuid }),
  z.object({ type: z.literal('turn'), id: uuid }),
  z.object({ type: z.literal('activity'), entity: entityRef }),
  ...TRACKED_VALUES.map(targetSchema),
]) satisfies z.ZodType<EditTarget>;

const GLOBAL_TARGETS: readonly string[] = ['you', 'bot'];

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function whereClause(t: EditTarget, chatId: string | null): { sql: string; params: SqlParam[] } {
  switch (t.type) {
    case 'you':
      return { sql: "id = 'you'", params: [] };
    case 'bot':
      return { sql: 'id = ?', params: [t.id] };
    // Chat rows are matched within the event's chat too, so one chat can be rebuilt alone.
    case 'memory':
      return { sql: `id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, params: [t.id, chatId] };
    case 'turn':
      return { sql: `turn_id = id_key(?) AND chat = ${chatKeyOf('transcript', '?')}`, params: [t.id, chatId] };
    case 'chat':
      return { sql: 'id = ?', params: [chatId] };
    case 'chat_state':
      return { sql: 'chat_id = ?', params: [chatId] };
    case 'edge':
      return { sql: 'chat_id = ? AND source = ? AND target = ?', params: [chatId, t.source, t.target] };
    case 'activity':
      return { sql: 'chat_id = ? AND entity = ?', params: [chatId, t.entity] };
    default:
      return whereOf(trackedValueOf(t.type)!, t, chatId);
  }
}

export const manualEdit = defineEvent({
  kind: 'manual_edit',
  writes: ['you', 'bots', 'chats', 'chat_state', 'edges', 'edge_facts', 'memories', 'transcript', 'activity', 'state_edits', ...TRACKED_TABLES],
  scope: 'any',
  schema: z
    .object({ target, field: z.string().max(40), prior: z.unknown(), value: z.unknown() })
    .superRefine((p, ctx) => {
      const fields = fieldsOf(p.target.type);
      const schema = Object.hasOwn(fields, p.field) ? fields[p.field] : undefined;
      if (!schema) {
        ctx.addIssue({
          code: 'custom',
          path: ['field'],
          message: `"${p.field}" cannot be edited on a ${p.target.type}; editable: ${Object.keys(fields).join(', ')}`,
        });
        return;
      }
      const checked = schema.safeParse(p.value);
      if (!checked.success) {
        for (const issue of checked.error.issues) {
          ctx.addIssue({ code: 'custom', path: ['value', ...issue.path], message: issue.message });
        }
      }
    })
    .transform((p) => ({ ...p, value: parseValue(p) })),
  needsChat: (p) => !GLOBAL_TARGETS.includes(p.target.type),
  apply(db: Db, { seq, chatId, payload: p }) {
    if (chatId && !GLOBAL_TARGETS.includes(p.target.type)) markEdited(db, chatId, p.target, p.field, seq);
    if (p.target.type === 'edge' && p.field === 'knowledge') {
      // The whole list is replaced: what the user removed is forgotten, the rest kept in their order.
      db.run(`DELETE FROM edge_fact_rows WHERE chat = ${chatKeyOf('edge_facts', '?')} AND source = id_key(?) AND target = id_key(?)`, [chatId, p.target.source, p.target.target]);
      addFacts(db, chatId, p.target.source, p.target.target, p.value as string[], seq);
      return;
    }
    if (p.target.type === 'activity' && p.field === 'doing') {
      db.run("UPDATE activity SET action = json_set(action, '$.verb', ?) WHERE chat_id = ? AND entity = ?", [p.value as string, chatId, p.target.entity]);
      return;
    }
    const tracked = trackedValueOf(p.target.type);
    const table = tracked ? tracked.table : targets[p.target.type as TargetType].table;
    const column = tracked ? tracked.fields[p.field]!.column : snake(p.field);
    const where = whereClause(p.target, chatId);
    const value = p.value;
    const stored: SqlParam = Array.isArray(value) ? json(value) : (value as SqlParam);
    db.run(`UPDATE ${storedTable(table)} SET ${column} = ? WHERE ${where.sql}`, [stored, ...where.params]);
  },
  changes: (p): ValueChange[] => (GLOBAL_TARGETS.includes(p.target.type) ? [] : [{ target: editKey(p.target), field: p.field, how: 'set', value: p.value }]),
  without: () => null,
});

/** The value after its field's schema (trimmed strings), so the projection stores what was validated. */
function parseValue(p: { target: EditTarget; field: string; value: unknown }): unknown {
  const checked = fieldsOf(p.target.type)[p.field]?.safeParse(p.value);
  return checked?.success ? checked.data : p.value;
}


/**
 * The player took back their latest drawer edit: `marks` supersedes that manual_edit and the chat
 * is re-projected without it.
 */
export const manualEditUndone = defineEvent({
  kind: 'manual_edit_undone',
  writes: ['visibility'],
  scope: 'chat',
  schema: z.object({ edit: eventId }),
  apply() {},
  marks: (db, event) => supersede(db, event.payload.edit, event),
  refersTo: (payload) => [payload.edit],
});
