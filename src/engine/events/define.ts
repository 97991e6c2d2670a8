import type { z } from 'zod';
import type { Db } from '../db/port.ts';

/** An event as stored in the log, with its payload parsed. */
export interface LoggedEvent<P = unknown> {
  /** Local arrival order in this database; nothing stored refers to it across devices. */
  seq: number;
  /** UUIDv7: unique everywhere, and id order is event order. */
  id: string;
  /** The database that wrote the event. */
  deviceId: string;
  ts: number;
  kind: string;
  chatId: string | null;
  payload: P;
  causeId: string | null;
  commandId: string | null;
}

/**
 * One event kind: its payload schema and its projection, declared together.
 *
 * Projections are deterministic and total: everything they need is in the event (ids and times are
 * made by the command, never here), and they never throw on a valid payload. A target that a
 * rewind or regenerate has since removed is simply not there, and an UPDATE of nothing is fine.
 */
export interface EventDefinition<K extends string = string, S extends z.ZodType = z.ZodType> {
  kind: K;
  /**
   * Every projected table (`events/tables.ts`) `apply` (or `applyToChat`) may write; the registry
   * refuses a name that is not one, and a test holds the projections to the list.
   */
  writes: readonly string[];
  /** 'chat' events must carry a chat id, 'global' ones must not, 'any' may or may not. */
  scope: 'chat' | 'global' | 'any';
  schema: S;
  /** For 'any' events: whether this payload is about one chat and so needs its id. */
  needsChat?(payload: z.infer<S>): boolean;
  apply(db: Db, event: LoggedEvent<z.infer<S>>): void;
  /**
   * For marker events (regenerate, rewind, undo): changes which events are visible, in the
   * `visibility` table, and returns the seqs whose visibility it changed. Run for every marker
   * event in id order before the visible events are replayed, hidden markers included, so later
   * markers see exactly the state the earlier ones left.
   */
  marks?(db: Db, event: LoggedEvent<z.infer<S>>): number[];
  /** The event ids this payload names; a backup or a merged log must hold every one of them. */
  refersTo?(payload: z.infer<S>): string[];
  /**
   * For global events whose effects reach into chat rows (a bot reset wipes its memories in every
   * chat): the same effect limited to one chat, so that chat can be rebuilt on its own.
   */
  applyToChat?(db: Db, event: LoggedEvent<z.infer<S>>, chatId: string): void;
  /**
   * The drawer values this event changes, each apart (issue 33): listed in "Why?" with the turn
   * that caused them, and undone one at a time ("Undo this change", `change_undone`).
   */
  changes?(payload: z.infer<S>): ValueChange[];
  /**
   * The payload without the named changes, for an "Undo this change": a delta taken out, a value not
   * set, a fact not added. Null when nothing of the event is left to apply. Required with `changes`.
   */
  without?(payload: z.infer<S>, undone: ReadonlySet<string>): z.infer<S> | null;
}

/**
 * One change an event makes to one drawer value. `target` is the value's owner as `editKey` names
 * it, `field` the value; `part` tells apart changes of one list (each fact added).
 */
export interface ValueChange {
  target: string;
  field: string;
  part?: string;
  /** delta: added to what was there; set: replaced it; add: one more in a list; create: it began here; refused: the story offered a value its field did not take. */
  how: 'delta' | 'set' | 'add' | 'create' | 'refused';
  value: unknown;
}

/** The one name of a change within its event: what `change_undone` names. */
export const changeKey = (c: Pick<ValueChange, 'target' | 'field' | 'part'>): string => `${c.target}:${c.field}${c.part ? `:${c.part}` : ''}`;

export function defineEvent<K extends string, S extends z.ZodType>(def: EventDefinition<K, S>): EventDefinition<K, S> {
  // Every change it declares is recorded for "Why?" as it is projected (events/value-changes.ts).
  return def.changes ? { ...def, writes: [...def.writes, 'value_changes'] } : def;
}

/** JSON for a TEXT column. Arrays and objects only, so a projection never stores `undefined`. */
export const json = (value: unknown): string => JSON.stringify(value);
