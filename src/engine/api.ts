import { z } from 'zod';
import { defineAdmin, id, none, type CallDeclaration } from './call.ts';
import type { TokenCounter } from './turn/tokens.ts';
import type { TokenizerFamily } from './turn/tokenizer-family.ts';
import { analysisCalls } from './analysis/jobs.ts';
import { authoringCalls } from './authoring/commands.ts';
import { branchCalls } from './rewind/branch.ts';
import { cardExportCalls } from './cards/card-export.ts';
import { chatImportCalls } from './chat-import/import.ts';
import { deletionCalls } from './deletion/commands.ts';
import { rescueCalls } from './deletion/rescue-calls.ts';
import { imageCalls } from './authoring/images.ts';
import { kickoffCalls } from './kickoff/commands.ts';
import { narratorCalls, type NarratorService } from './leader/narrator.ts';
import { syncCalls, type SyncRunner } from './leader/sync-runner.ts';
import { classifierCalls } from './llm/classifier.ts';
import { backupCalls } from './log/backup.ts';
import { headCalls } from './log/head.ts';
import { loreCalls } from './lore/commands.ts';
import { loreQueryCalls } from './lore/queries.ts';
import { authoredCalls } from './authoring/queries.ts';
import { chatExportCalls } from './queries/chat-export.ts';
import { chatStateCalls } from './queries/chat-state.ts';
import { chatListCalls } from './queries/chats.ts';
import { recapCalls } from './queries/recap.ts';
import { valueHistoryCalls } from './queries/value-history.ts';
import { searchCalls } from './queries/search.ts';
import { storyLanguageCalls } from './queries/story-language.ts';
import { transcriptCalls } from './queries/transcript.ts';
import { rewindCalls } from './rewind/commands.ts';
import { settingsCalls } from './settings/calls.ts';
import { storyCalls } from './story/commands.ts';
import { promptReportCalls } from './turn/reply-prompt.ts';
import { turnEditCalls } from './turn/turn-edits.ts';
import { versionCalls } from './turn/turn-commands.ts';
import type { CallEnv } from './call.ts';

/**
 * Every call a tab can make. Each is declared beside what it does (`defineQuery`, `defineCommand`
 * in its feature's module: its argument schema, what it reads, and `run`, the implementation);
 * this table only gathers them. The leader checks each request against it before running it (a
 * malformed call from another tab gets a clear error), the worker learns from it which calls are
 * commands (they get a command id), and the UI's client is typed from it: go-to-definition on
 * `client.engine.x` lands on the declaration of `x`, beside its `run`.
 */

/** What a call runs with on the leader: the log and model client, the narrator, sync and the token counter. */
export type LeaderEnv = CallEnv & { narrator: NarratorService; sync: SyncRunner | null; tokens: (family?: TokenizerFamily | null) => Promise<TokenCounter> };

/** The calls the tab's worker runs itself: the database replaced, or files made of it. */
const adminCalls = {
  startFresh: defineAdmin(none),
  /** A backup file (Blob) is checked and, after a backup of what is here now, replaces the log. */
  restoreBackup: defineAdmin(z.tuple([z.unknown()])),
  /** A backup file of the log as it stands (a Blob, gzip). */
  backupFile: defineAdmin(none),
  /** What a backup file holds, checked through; nothing is written. */
  checkBackup: defineAdmin(z.tuple([z.unknown()])),
  /** A consistent copy of the SQLite file (a Blob), for other tools. */
  databaseFile: defineAdmin(none),
  /** The backups kept in this browser, newest first. */
  listBackups: defineAdmin(none),
  /** One of them, as a File to download. */
  storedBackup: defineAdmin(z.tuple([z.string().max(200)])),
  databaseState: defineAdmin(none),
  /** What the database holds in the leader's memory: SQLite's WebAssembly heap and its page cache. */
  memoryUse: defineAdmin(none),
};

export const API = {
  ...headCalls,
  ...authoredCalls,
  ...chatListCalls,
  ...transcriptCalls,
  ...chatStateCalls,
  ...recapCalls,
  ...valueHistoryCalls,
  ...promptReportCalls,
  ...settingsCalls,
  ...classifierCalls,
  ...backupCalls,
  ...deletionCalls,
  ...rescueCalls,
  ...cardExportCalls,
  ...chatExportCalls,
  ...searchCalls,
  ...storyLanguageCalls,
  ...loreQueryCalls,
  ...loreCalls,
  ...analysisCalls,
  ...authoringCalls,
  ...imageCalls,
  ...kickoffCalls,
  ...chatImportCalls,
  ...rewindCalls,
  ...branchCalls,
  ...turnEditCalls,
  ...versionCalls,
  ...storyCalls,
  ...narratorCalls,
  ...syncCalls,
  ...adminCalls,
} satisfies Record<string, CallDeclaration<LeaderEnv>>;

export type CallName = keyof typeof API;
type KindOf<K extends string> = { [N in CallName]: (typeof API)[N]['kind'] extends K ? N : never }[CallName];
export type QueryName = KindOf<'query'>;
export type CommandName = KindOf<'command'>;

/** The queries a screen may keep live: those that declare what they read. */
export type LiveQueryName = { [N in QueryName]: (typeof API)[N]['reads'] extends readonly string[] ? N : never }[QueryName];

export type EngineCallName = QueryName | CommandName;
/** A call's implementation, and what it takes after the environment. */
export type RunOf<N extends EngineCallName> = (typeof API)[N]['run'];
export type ArgsOf<N extends EngineCallName> = RunOf<N> extends (env: never, ...args: infer A) => unknown ? A : never;

/**
 * What a tab's UI sees: every query and command as an async function taking what its `run` takes
 * after the environment. A command's id is made by the tab's worker, so the UI never passes one.
 */
export type EngineClient = {
  [N in keyof typeof API as N extends EngineCallName ? N : never]: N extends EngineCallName ? (...args: ArgsOf<N>) => Promise<Awaited<ReturnType<RunOf<N>>>> : never;
};

/** The live queries that read any of these tables: what a change notice makes stale. */
export function liveQueriesReading(tables: readonly string[]): string[] {
  return Object.entries(API as Record<string, CallDeclaration<LeaderEnv>>)
    .filter(([, declaration]) => declaration.reads?.some((table) => tables.includes(table)))
    .map(([name]) => name);
}

export function declarationOf(method: string): CallDeclaration<LeaderEnv> | undefined {
  return Object.hasOwn(API, method) ? (API as Record<string, CallDeclaration<LeaderEnv>>)[method] : undefined;
}

/** A call another tab (or a bug) sent that the table does not allow: refused before anything runs. */
export class BadCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadCallError';
  }
}

/**
 * Checks a request against the table: the method exists, and its arguments fit the schema. A
 * command's first argument is the command id its tab made, returned apart.
 */
export function checkCall(method: string, args: unknown): { declaration: CallDeclaration<LeaderEnv>; commandId: string | undefined; args: unknown[] } {
  const declaration = declarationOf(method);
  if (!declaration) throw new BadCallError(`Unknown engine call "${method}".`);
  if (!Array.isArray(args)) throw new BadCallError(`The arguments of "${method}" must be a list.`);
  const [first, ...rest] = args as unknown[];
  const command = declaration.kind === 'command';
  if (command && !id.safeParse(first).success) throw new BadCallError(`"${method}" needs a command id first.`);
  const parsed = declaration.args.safeParse(command ? rest : args);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.length ? `argument ${i.path.join('.')}` : 'arguments'}: ${i.message}`).join('; ');
    throw new BadCallError(`Bad arguments for "${method}": ${where}.`);
  }
  return { declaration, commandId: command ? (first as string) : undefined, args: parsed.data as unknown[] };
}
