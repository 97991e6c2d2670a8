import type { TargetOf } from './tracked-value.ts';
import { places } from './places.ts';
import { threads } from './threads.ts';
import { items } from './items.ts';
import { fieldDefs, fieldValues } from './fields.ts';

/** Every kind of story state declared as a tracked value (`tracked-value.ts`): a new one is added here. */
export const TRACKED_VALUES = [places, threads, items, fieldDefs, fieldValues] as const;
/** Their events, for the log's registry (each value's, spread, so their kinds stay literal). */
export const TRACKED_EVENTS = [...places.events, ...threads.events, ...items.events, ...fieldDefs.events, ...fieldValues.events] as const;

export type TrackedTarget = TargetOf<(typeof TRACKED_VALUES)[number]>;
export type TrackedTable = (typeof TRACKED_VALUES)[number]['table'];
export const TRACKED_TABLES: readonly TrackedTable[] = TRACKED_VALUES.map((v) => v.table);

export function trackedValueOf(targetType: string) {
  return TRACKED_VALUES.find((v) => v.target === targetType);
}
