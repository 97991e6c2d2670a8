import { z } from 'zod';
import type { ProjectedTable } from './events/tables.ts';
import type { LlmClient } from './llm/port.ts';
import type { LogContext } from './log/context.ts';

/**
 * What every call runs with: the log (a `LogContext`, so any command helper takes it as it is),
 * the command id its tab made (commands only), the model client, and the tabs' live channel.
 */
export interface CallEnv extends LogContext {
  /** The id the calling tab made once for this action: a re-send finds it in the log (`log/command.ts`). */
  commandId: string | undefined;
  llm: LlmClient;
  /** Live state for the tabs (an import's progress), not written anywhere. */
  publish(topic: string, data: unknown): void;
  randomBytes(length: number): Uint8Array;
  /** Events came in whole (a restore): the id clock moves past the newest, so what is written next sorts after. */
  observeLog(): void;
}

/**
 * One call a tab can make, declared beside what it does:
 * - `query`: reads only. With `reads` it is live: a screen may keep it, and it refetches when a
 *   change touches one of those tables (tests/engine/query-reads.test.ts holds `reads` to what SQLite
 *   says the query reads). Without, it is asked once for an action (a preview, an export, a draft)
 *   and cannot be kept live. `records`: it may append an event all the same (a failing classifier).
 * - `command`: writes. The calling tab makes its command id once, so a re-send is applied once.
 *   `rebuilds`: its effect is a rebuild of the chat's projections, not just appended events.
 * - `admin`: replaces the database under every tab; run by the worker, not the engine.
 *
 * `args` is checked before `run` sees anything (another tab, or a bug, gets a clear error).
 */
export interface CallDeclaration<E = never> {
  kind: 'query' | 'command' | 'admin';
  args: z.ZodTuple;
  reads?: readonly ProjectedTable[] | undefined;
  records?: true | undefined;
  rebuilds?: true | undefined;
  run?: (env: E, ...args: never[]) => unknown;
}

type Run<E, A extends z.ZodTuple, R> = (env: E, ...args: z.output<A>) => R;

/** A read-only call; `reads` makes it live. */
/*@__NO_SIDE_EFFECTS__*/
export function defineQuery<A extends z.ZodTuple, R, E = CallEnv, const T extends readonly ProjectedTable[] | undefined = undefined>(declaration: {
  args: A;
  reads?: T;
  records?: true;
  run: Run<E, A, R>;
}): { kind: 'query'; args: A; reads: T; records: true | undefined; run: Run<E, A, R> } {
  return { kind: 'query', reads: undefined as T, records: undefined, ...declaration };
}

/** A call that writes: its events carry the tab's command id, so a re-send is applied once. */
/*@__NO_SIDE_EFFECTS__*/
export function defineCommand<A extends z.ZodTuple, R, E = CallEnv>(declaration: {
  args: A;
  rebuilds?: true;
  run: Run<E, A, R>;
}): { kind: 'command'; args: A; rebuilds: true | undefined; run: Run<E, A, R> } {
  return { kind: 'command', rebuilds: undefined, ...declaration };
}

/** A call the tab's worker runs itself (the database replaced, files of it made): no engine `run`. */
/*@__NO_SIDE_EFFECTS__*/
export function defineAdmin<A extends z.ZodTuple>(args: A): { kind: 'admin'; args: A } {
  return { kind: 'admin', args };
}

// The argument shapes calls share.
export const id = z.string().min(1).max(200);
export const seq = z.number().int().nonnegative();
export const none = z.tuple([]);
