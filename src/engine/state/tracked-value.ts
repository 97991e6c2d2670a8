import { z } from 'zod';
import type { Db, SqlParam } from '../db/port.ts';
import type { EventDefinition } from '../events/define.ts';

/** One value the player may set by hand in the drawer: the column it lives in and the rule a new value must pass. */
export interface EditableField {
  column: string;
  schema: z.ZodType;
}

/**
 * A kind of story state the engine tracks per chat (places and threads today; items and fields of
 * the player's own next), declared once. Everything else follows from this declaration:
 * - its table is projected (`PROJECTED_TABLES`), rebuilt per chat through its chat column (rewind,
 *   regenerate, branch, sync merges), and forgotten with its chat (the purge);
 * - its `events` are in the log's registry;
 * - the drawer may edit its `fields` (`manual_edit`, with their rules), an edit's prior value is
 *   read from them, and an edit marks them "edited by you";
 * - `chatState` reads its table, so a change to it refreshes the drawer;
 * - `clearedByHostReset`: a reset of the chat's host clears it (bot_reset).
 * Its migration, its place in the drawer, its part of the analysis and its test are the other
 * files a new kind of state takes.
 */
export interface TrackedValue<T extends string = string, Table extends string = string, K extends Record<string, z.ZodType> = Record<string, z.ZodType>> {
  /** How a manual_edit names one of it: `{ type, ...key }`. */
  target: T;
  table: Table;
  /** The column naming its chat. */
  chatColumn: string;
  /** The target's fields that find one row within its chat, each with its column and schema. */
  key: { [P in keyof K]: { column: string; schema: K[P] } };
  fields: Record<string, EditableField>;
  clearedByHostReset: boolean;
  /** The events that write it: their projections, beside the value they fill. */
  events: readonly EventDefinition[];
}

export function defineTrackedValue<const T extends string, const Table extends string, K extends Record<string, z.ZodType>, const E extends readonly EventDefinition[]>(
  value: TrackedValue<T, Table, K> & { events: E },
): TrackedValue<T, Table, K> & { events: E } {
  return value;
}

/**
 * How `editKey` names one row of a tracked value: its target type, then its key's values in the
 * order its target lists them. Here, so a tracked value's own events can name their rows.
 */
export const trackedKey = (type: string, ...keyValues: readonly unknown[]): string => [type, ...keyValues.map(String)].join(':');

/** The edit target naming one row of a tracked value. */
export type TargetOf<V> = V extends TrackedValue<infer T, string, infer K> ? { type: T } & { [P in keyof K]: z.output<K[P]> } : never;

/** The schema of its edit targets, for manual_edit's discriminated union. */
export function targetSchema<T extends string, K extends Record<string, z.ZodType>>(value: TrackedValue<T, string, K>) {
  const shape = Object.fromEntries(Object.entries(value.key).map(([name, k]) => [name, (k as { schema: z.ZodType }).schema]));
  return z.object({ type: z.literal(value.target), ...shape }) as unknown as z.ZodObject<{ type: z.ZodLiteral<T> } & { [P in keyof K]: K[P] }>;
}

/** The WHERE clause finding a target's row within its chat. */
export function whereOf(value: TrackedValue, target: Record<string, unknown>, chatId: string | null): { sql: string; params: SqlParam[] } {
  const keys = Object.entries(value.key);
  return {
    sql: [...keys.map(([, k]) => `${k.column} = ?`), `${value.chatColumn} = ?`].join(' AND '),
    params: [...keys.map(([name]) => target[name] as SqlParam), chatId],
  };
}

/** A field's value as the projection holds it: what an edit of it replaces (undefined: the row is gone). */
export function currentValueOf(db: Db, value: TrackedValue, target: Record<string, unknown>, chatId: string, field: string): unknown {
  const editable = Object.hasOwn(value.fields, field) ? value.fields[field] : undefined;
  if (!editable) return undefined;
  const where = whereOf(value, target, chatId);
  return db.get<{ value: unknown }>(`SELECT ${editable.column} AS value FROM ${value.table} WHERE ${where.sql}`, where.params)?.value;
}
