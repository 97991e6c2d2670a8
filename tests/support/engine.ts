import { API, type ArgsOf, type CallName, type EngineCallName, type LeaderEnv, type RunOf } from '../../src/engine/api.ts';
import { createEngine as createCore, openEngine as openCore, type Engine as CoreEngine, type EngineDeps } from '../../src/engine/engine.ts';
import type { Migration } from '../../src/engine/db/migrate.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { appendEvents } from '../../src/engine/log/append.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import { rebuild, rebuildChat } from '../../src/engine/log/rebuild.ts';
import { pruneJournal } from '../../src/engine/log/journal.ts';
import { purgeExpired } from '../../src/engine/deletion/commands.ts';
import { classifyLogged } from '../../src/engine/llm/classifier.ts';
import { searchMemories, type MemorySearch } from '../../src/engine/memory/retrieval.ts';
import { samplerFor } from '../../src/engine/queries/chat-state.ts';
import { readSettings } from '../../src/engine/settings/settings.ts';
import { narratorPrompt } from '../../src/engine/turn/narrator-prompt.ts';
import type { Framing } from '../../src/engine/turn/tokenizer-family.ts';
import { estimateTokens, type TokenCounter } from '../../src/engine/turn/tokens.ts';
import { turnCommands } from '../../src/engine/turn/turn-commands.ts';

/** Every engine call, run in place and synchronously as its declaration's `run` runs it (no leader, no notices). */
type Calls = { [N in keyof typeof API as N extends EngineCallName ? N : never]: N extends EngineCallName ? (...args: ArgsOf<N>) => ReturnType<RunOf<N>> : never };

const noModel: LlmClient = {
  stream: () => {
    throw new Error('This test engine has no model: use testLeader for replies.');
  },
  complete: () => Promise.reject(new Error('This test engine has no model: use testLeader for replies.')),
};

/**
 * The engine as the engine tests drive it: the core, every call of `API` by name (a command gets a
 * fresh command id, or the one given to `as`), and the log's internals the tests reach for.
 */
export function withCalls(core: CoreEngine, options: { publish?: (topic: string, data: unknown) => void } = {}) {
  const { ctx } = core;
  const envFor = (commandId: string | undefined): LeaderEnv => ({
    ...core.callEnv(commandId, noModel, options.publish ?? (() => {})),
    narrator: new Proxy({} as LeaderEnv['narrator'], {
      get: () => {
        throw new Error('This test engine has no narrator: use testLeader for replies.');
      },
    }),
    sync: null,
    tokens: async () => estimateTokens,
  });
  const bind = (commandId?: string): Calls =>
    Object.fromEntries(
      (Object.keys(API) as CallName[]).flatMap((name) => {
        const declaration = API[name];
        if (!('run' in declaration)) return [];
        const run = declaration.run as (env: LeaderEnv, ...args: unknown[]) => unknown;
        return [[name, (...args: unknown[]) => run(envFor(declaration.kind === 'command' ? (commandId ?? core.newId()) : undefined), ...args)]];
      }),
    ) as Calls;
  return {
    ...core,
    ...bind(),
    /** The calls with this command id: what a tab re-sending its command would get. */
    as: (commandId: string) => bind(commandId),
    append: (drafts: readonly EventDraft[]) => appendEvents(ctx, drafts),
    turns: turnCommands(ctx),
    purgeExpired: () => purgeExpired(ctx),
    narratorPrompt: (chatId: string, replySeq: number, count: TokenCounter, mode?: 'reply' | 'impersonate', framing?: Framing) =>
      narratorPrompt(ctx.db, chatId, replySeq, readSettings(ctx.db), count, mode, framing),
    samplerFor: (chatId: string) => samplerFor(ctx.db, chatId),
    searchMemories: (search: MemorySearch) => searchMemories(ctx.db, search),
    classify: ((llm, schema, prompt, options) => classifyLogged(ctx, llm, schema, prompt, options)) as <S extends Parameters<typeof classifyLogged>[2]>(
      llm: LlmClient,
      schema: S,
      prompt: Parameters<typeof classifyLogged>[3],
      options: Parameters<typeof classifyLogged<S>>[4],
    ) => ReturnType<typeof classifyLogged<S>>,
    eventsAfter: core.sync.eventsAfter,
    rebuild: () => rebuild(ctx.db),
    rebuildChat: (chatId: string) => rebuildChat(ctx.db, chatId),
    pruneJournal: () => pruneJournal(ctx.db, ctx.journalKeep),
  };
}

export type Engine = ReturnType<typeof withCalls>;

export function createEngine(deps: EngineDeps): Engine {
  return withCalls(createCore(deps));
}

export async function openEngine(deps: EngineDeps, migrations: readonly Migration[]): Promise<Engine> {
  return withCalls(await openCore(deps, migrations));
}
