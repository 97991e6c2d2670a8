import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineEvent, json, type ValueChange } from '../events/define.ts';
import { entityRef, requiredText, shortText, uuid } from '../events/fields.ts';
import { defineTrackedValue, trackedKey } from './tracked-value.ts';

export const FIELD_TYPES = ['text', 'number', 'list', 'choice'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** A field is kept for each character present ("Outfit") or once for the whole chat ("Tension"). */
export const FIELD_SCOPES = ['character', 'chat'] as const;

const choice = z.string().trim().min(1).max(40);

/**
 * A field of the player's own (issue 33, part 4): a name, a line telling the model what it means,
 * and a type: text, a number within a range, a list, or one of a few choices.
 */
export const fieldDef = z
  .object({
    id: uuid,
    name: requiredText(40),
    about: shortText(300),
    type: z.enum(FIELD_TYPES),
    per: z.enum(FIELD_SCOPES),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    choices: z.array(choice).min(2).max(8).optional(),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'number' && (f.min === undefined || f.max === undefined || f.min >= f.max)) ctx.addIssue({ code: 'custom', path: ['max'], message: 'a number field needs a range, its lowest below its highest' });
    if (f.type === 'choice' && !f.choices) ctx.addIssue({ code: 'custom', path: ['choices'], message: 'a choice field needs two to eight choices' });
  });
export type FieldDef = z.infer<typeof fieldDef>;

/** A field's value, stored as JSON: a string, a number, or a list of strings. */
export type FieldValue = string | number | string[];

/** Checks a value against its field: the value as kept, or why it is refused (what "Why?" shows). */
export function checkFieldValue(def: FieldDef, value: unknown): { ok: true; value: FieldValue } | { ok: false; reason: string } {
  switch (def.type) {
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return { ok: false, reason: `${def.name} must be a number from ${def.min} to ${def.max}` };
      if (n < def.min! || n > def.max!) return { ok: false, reason: `${def.name} must be from ${def.min} to ${def.max}, not ${n}` };
      return { ok: true, value: Math.round(n * 100) / 100 };
    }
    case 'choice': {
      const picked = typeof value === 'string' ? def.choices!.find((c) => c.toLowerCase() === value.trim().toLowerCase()) : undefined;
      return picked ? { ok: true, value: picked } : { ok: false, reason: `${def.name} must be one of ${def.choices!.join(', ')}` };
    }
    case 'list': {
      const items = typeof value === 'string' ? value.split(',') : value;
      if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) return { ok: false, reason: `${def.name} must be a list of words` };
      const kept = items.map((i: string) => i.replace(/\s+/g, ' ').trim()).filter(Boolean);
      if (kept.length > 12 || kept.some((i) => i.length > 80)) return { ok: false, reason: `${def.name} keeps at most 12 entries of 80 characters` };
      return { ok: true, value: kept };
    }
    default: {
      if (typeof value !== 'string') return { ok: false, reason: `${def.name} must be words` };
      const text = value.replace(/\s+/g, ' ').trim();
      if (text.length > 200) return { ok: false, reason: `${def.name} must be 200 characters or fewer` };
      return { ok: true, value: text };
    }
  }
}

/** How a field and its range read to the model and the player: "Hunger (number 0–100)". */
export const fieldKind = (def: FieldDef): string =>
  def.type === 'number' ? `number ${def.min}–${def.max}` : def.type === 'choice' ? `one of: ${def.choices!.join(', ')}` : def.type === 'list' ? 'list' : 'text';

/** A value as it reads: a list joined, a number as it is. */
export const fieldText = (value: FieldValue | null | undefined): string => (value === null || value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value));

/** A field added to a chat (by the player, or copied from the host bot's when the chat starts), or its definition changed. */
export const fieldDefined = defineEvent({
  kind: 'field_defined',
  writes: ['field_defs'],
  scope: 'chat',
  schema: z.object({ field: fieldDef }),
  apply(db, { seq, chatId, payload: { field: f } }) {
    db.run(
      `INSERT INTO field_defs (chat_id, id, name, about, type, per, min, max, choices, removed, defined_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
       ON CONFLICT (chat_id, id) DO UPDATE SET name = excluded.name, about = excluded.about, type = excluded.type, per = excluded.per,
         min = excluded.min, max = excluded.max, choices = excluded.choices, removed = 0`,
      [chatId, f.id, f.name, f.about, f.type, f.per, f.min ?? null, f.max ?? null, json(f.choices ?? []), seq],
    );
  },
});

/** A field taken out of a chat: its values stay in the log, no longer shown or asked for. */
export const fieldRemoved = defineEvent({
  kind: 'field_removed',
  writes: ['field_defs'],
  scope: 'chat',
  schema: z.object({ fieldId: uuid }),
  apply(db, { chatId, payload: p }) {
    db.run('UPDATE field_defs SET removed = 1 WHERE chat_id = ? AND id = ?', [chatId, p.fieldId]);
  },
});

/** Whose value: a character ('you' or a bot) for a per-character field, '' for the chat's own. */
const owner = z.union([entityRef, z.literal('')]);
const fieldValue = z.union([z.string().max(200), z.number().finite(), z.array(z.string().max(80)).max(12)]);

/** A field's value set: by the analysis of a reply (checked against the field first), or by the player. */
export const fieldSet = defineEvent({
  kind: 'field_set',
  writes: ['field_values'],
  scope: 'chat',
  schema: z.object({ fieldId: uuid, owner, value: fieldValue }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO field_values (chat_id, id, field_id, owner, value, set_seq) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id, id) DO UPDATE SET value = excluded.value, set_seq = excluded.set_seq`,
      [chatId, fieldValueId(p.fieldId, p.owner), p.fieldId, p.owner, json(p.value), seq],
    );
  },
  changes: (p): ValueChange[] => [{ target: trackedKey('field_value', fieldValueId(p.fieldId, p.owner)), field: 'value', how: 'set', value: p.value }],
  without: () => null,
});

/**
 * A value the analysis gave that its field refused (out of range, not one of the choices): the
 * previous value stays, and "Why?" shows what was refused and why.
 */
export const fieldRefused = defineEvent({
  kind: 'field_refused',
  writes: [],
  scope: 'chat',
  schema: z.object({ fieldId: uuid, owner, value: z.string().max(300), reason: z.string().max(300) }),
  apply() {},
  changes: (p): ValueChange[] => [{ target: trackedKey('field_value', fieldValueId(p.fieldId, p.owner)), field: 'value', how: 'refused', value: { value: p.value, reason: p.reason } }],
  without: () => null,
});

/** The chat's fields of its own: their definitions, their names and lines editable in the drawer. */
export const fieldDefs = defineTrackedValue({
  target: 'field',
  table: 'field_defs',
  chatColumn: 'chat_id',
  key: { id: { column: 'id', schema: uuid } },
  fields: { name: { column: 'name', schema: requiredText(40) }, about: { column: 'about', schema: shortText(300) } },
  clearedByHostReset: false,
  events: [fieldDefined, fieldRemoved],
});

/** One value's row: its field and whose it is ('' for the chat's own). */
export const fieldValueId = (fieldId: string, owner: string): string => `${fieldId}:${owner}`;

/** The values of those fields, for each character or for the chat; set by `setFieldValue`, which checks them against their field. */
export const fieldValues = defineTrackedValue({
  target: 'field_value',
  table: 'field_values',
  chatColumn: 'chat_id',
  key: { id: { column: 'id', schema: z.string().min(1).max(200) } },
  fields: {},
  clearedByHostReset: true,
  events: [fieldSet, fieldRefused],
});

/** A chat's field with its values, as the drawer, the narrator and the analysis read it. */
export interface TrackedField {
  def: FieldDef;
  /** By owner: a character's ref, or '' for the chat's own. */
  values: Record<string, FieldValue>;
}

/** The chat's fields still in it, in the order they were added, with their values. */
export function chatFields(db: Db, chatId: string): TrackedField[] {
  const defs = db.all<{ id: string; name: string; about: string; type: FieldType; per: (typeof FIELD_SCOPES)[number]; min: number | null; max: number | null; choices: string }>(
    'SELECT id, name, about, type, per, min, max, choices FROM field_defs WHERE chat_id = ? AND removed = 0 ORDER BY defined_seq, id',
    [chatId],
  );
  const values = db.all<{ field_id: string; owner: string; value: string }>('SELECT field_id, owner, value FROM field_values WHERE chat_id = ?', [chatId]);
  return defs.map((d) => {
    const choices = JSON.parse(d.choices) as string[];
    const def: FieldDef = { id: d.id, name: d.name, about: d.about, type: d.type, per: d.per, ...(d.min !== null ? { min: d.min } : {}), ...(d.max !== null ? { max: d.max } : {}), ...(choices.length ? { choices } : {}) };
    return { def, values: Object.fromEntries(values.filter((v) => v.field_id === d.id).map((v) => [v.owner, JSON.parse(v.value) as FieldValue])) };
  });
}
