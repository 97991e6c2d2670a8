import { API, checkCall, liveQueriesReading, type CallName, type EngineClient, type LeaderEnv } from '../api.ts';
import type { Engine } from '../engine.ts';
import type { LlmClient } from '../llm/port.ts';
import { tablesWrittenBy } from '../events/registry.ts';
import { purgeExpired } from '../deletion/commands.ts';
import type { TokenCounter } from '../turn/tokens.ts';
import type { CountedWith, TokenizerFamily } from '../turn/tokenizer-family.ts';
import { AnalysisQueue } from './analysis-queue.ts';
import { NarratorService } from './narrator.ts';
import { SEARCH_INDEX_TOPIC, SYNC_TOPIC, type SearchIndexProgress } from './stream.ts';
import { createSyncRunner, type SyncRunner } from './sync-runner.ts';
import { createReplicator } from '../sync/replicator.ts';
import type { CouchDatabase, SyncGenerations } from '../sync/couch.ts';

/** What the committed writes since the last notice changed; the UI refetches only what they touch. */
export interface Change {
  /** Head seq before and after: a change whose fromSeq is not the last seen toSeq means a gap. */
  fromSeq: number;
  toSeq: number;
  chats: string[];
  /** The projected tables the writes touched. */
  tables: string[];
  /** The live queries that read one of them: a screen showing one refetches it (for its chat, or everywhere when `global`). */
  queries: string[];
  /** Of those, the ones a global table (you, bots, settings) made stale: they refetch whatever chat they show. */
  global: string[];
  /** Projections of `chats` (or of everything when `chats` is empty) were rebuilt: refetch them all. */
  rebuilt: boolean;
}

/** What the leader tells every tab: committed changes, and live state (the token mirror). */
export type LeaderEvent = { type: 'changed'; change: Change } | { type: 'publish'; topic: string; seq: number; data: unknown };

export interface LeaderDeps {
  engine: Engine;
  llm: LlmClient;
  tokens: (family?: TokenizerFamily | null) => Promise<TokenCounter>;
  /** What the counter for a family counts with right now, for the prompt inspector. */
  countedWith?: (family: TokenizerFamily | null) => CountedWith;
  now: () => number;
  emit: (event: LeaderEvent) => void;
  /** Background work that failed (a bug, a database error); the platform decides where it goes. */
  report?: (message: string, error: unknown) => void;
  /** The sync server's database (through the relay), when this device syncs. */
  sync?: { couch: CouchDatabase; remote: string; generations?: SyncGenerations; longPollMs?: number; maxBackoffMs?: number; firstBackoffMs?: number };
}

/** How long after leading sync starts: the tab's first screen is drawn before its requests go out. */
const SYNC_START_DELAY_MS = 300;


export type Leader = ReturnType<typeof createLeader>;

/** Tables of rows that belong to no chat: a change to one matters to every chat that shows it (a bot's name, its deletion). */
const GLOBAL_TABLES = ['you', 'bots', 'settings'];

/** How long after a write the search index catches up: past the burst of writes a Send makes. */
const SEARCH_INDEX_DELAY_MS = 1_000;
/** Between passes over a backlog (a migration's re-index): the tab's work goes on between them. */
const SEARCH_BACKLOG_DELAY_MS = 50;

/**
 * The leader core: everything the tab holding the database does, platform-neutral. It runs every
 * tab's calls (validated against `API`), owns the turn lifecycle (send, stream with checkpoints,
 * stop, finish, recover, regenerate), the analysis queue and the kickoff proposal, and tells every
 * tab what changed. The worker runs exactly this; the engine tests drive exactly this.
 */
export function createLeader(deps: LeaderDeps) {
  const { engine, llm, emit } = deps;
  let notifiedSeq = engine.headSeq();
  const topicSeq = new Map<string, number>();
  let stopped = false;
  let indexing = false;

  /**
   * Brings the search indexes (story and memories) up to date a second after a write, a batch per
   * pass, off the path between Send and the model (a search indexes what still waits itself).
   */
  let backlogShown = false;
  const indexSearchSoon = (delay = SEARCH_INDEX_DELAY_MS) => {
    if (indexing || stopped) return;
    indexing = true;
    setTimeout(() => {
      indexing = false;
      if (stopped) return;
      try {
        const waiting = engine.indexSearch();
        // More than a pass's worth still waits: a backlog, shown with its progress until it is done.
        if (waiting > 0 || backlogShown) {
          backlogShown = waiting > 0;
          publish(SEARCH_INDEX_TOPIC, { waiting } satisfies SearchIndexProgress);
        }
        if (waiting > 0) indexSearchSoon(SEARCH_BACKLOG_DELAY_MS);
      } catch (error) {
        deps.report?.('Indexing the story for search failed', error);
      }
    }, delay);
  };

  let sync: SyncRunner | null = null;
  /** Tells every tab what the writes since the last notice changed, then looks for analysis to do. */
  const notify = (rebuilt: boolean, merged = false) => {
    if (stopped) return;
    const fromSeq = notifiedSeq;
    const toSeq = engine.headSeq();
    if (toSeq === fromSeq && !rebuilt) return;
    // Written here: on to the server now, not at the next change there.
    if (!merged && toSeq !== fromSeq) sync?.poke();
    const rows = engine.changesSince(fromSeq);
    notifiedSeq = toSeq;
    const tables = [...new Set(rows.flatMap((r) => tablesWrittenBy(r.kind, r.chatId !== null)))].sort();
    const change: Change = {
      fromSeq,
      toSeq,
      chats: [...new Set(rows.map((r) => r.chatId).filter((c): c is string => c !== null))],
      tables,
      queries: liveQueriesReading(tables),
      global: liveQueriesReading(tables.filter((t) => GLOBAL_TABLES.includes(t))),
      rebuilt,
    };
    emit({ type: 'changed', change });
    analysis.kick(change.chats);
    indexSearchSoon();
  };

  const publish = (topic: string, data: unknown): number => {
    const seq = (topicSeq.get(topic) ?? 0) + 1;
    topicSeq.set(topic, seq);
    if (!stopped) emit({ type: 'publish', topic, seq, data });
    return seq;
  };

  const narrator = new NarratorService({
    ctx: engine.ctx,
    llm,
    tokens: deps.tokens,
    ...(deps.countedWith ? { countedWith: deps.countedWith } : {}),
    notify,
    publish,
    topicSeq: (topic) => topicSeq.get(topic) ?? 0,
    now: deps.now,
  });

  const analysis = new AnalysisQueue({
    pending: (chatId) => engine.analysis.pending(chatId),
    run: async (job, signal) => engine.analysis.run(llm, job, await deps.tokens(), signal),
    committed: () => notify(false),
    failed: (job, error) => deps.report?.(`Analysis job ${job.key} failed`, error),
  });

  if (deps.sync) {
    const replicator = createReplicator({
      couch: deps.sync.couch,
      remote: deps.sync.remote,
      log: engine.sync,
      deviceId: () => engine.identify().dbId,
      // A merge may have replayed whole chats: their screens refetch everything.
      merged: () => notify(true, true),
      progress: (pulled, total) => sync?.pulling(pulled, total),
      pushProgress: (offered, total) => sync?.pushingProgress(offered, total),
      ready: () => narrator.idle(),
      passphrase: () => engine.sync.passphrase(),
      ...(deps.sync.generations ? { generations: deps.sync.generations } : {}),
      resealProgress: (written, total) => sync?.resealingProgress(written, total),
      randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
    });
    sync = createSyncRunner({
      replicator,
      now: deps.now,
      paused: () => engine.sync.paused(),
      encrypted: () => engine.sync.passphrase() !== null,
      caughtUp: () => engine.sync.caughtUp(deps.sync!.remote),
      unsynced: () => engine.sync.unsynced(replicator.key()),
      pendingPassphrase: () => engine.sync.pendingPassphrase(),
      resealed: () => engine.sync.resealed(),
      publish: (status) => publish(SYNC_TOPIC, status),
      ...(deps.sync.longPollMs ? { longPollMs: deps.sync.longPollMs } : {}),
      ...(deps.sync.maxBackoffMs ? { maxBackoffMs: deps.sync.maxBackoffMs } : {}),
      ...(deps.sync.firstBackoffMs ? { firstBackoffMs: deps.sync.firstBackoffMs } : {}),
    });
  }

  /**
   * Runs one call from any tab: refused with a clear error unless `API` allows it as sent, then its
   * declaration's `run`, then every tab hears what it changed.
   */
  async function call(method: string, args: unknown): Promise<unknown> {
    const { declaration, commandId, args: checked } = checkCall(method, args);
    if (!declaration.run) throw new Error(`"${method}" is run by the tab's worker, not the engine.`);
    const env: LeaderEnv = { ...engine.callEnv(commandId, llm, publish), narrator, sync, tokens: deps.tokens };
    const running = declaration.run(env, ...(checked as never[]));
    // A command that wrote synchronously is announced before its reply starts streaming.
    const answer = running instanceof Promise ? await running : running;
    if (declaration.kind === 'command' || declaration.records) notify(declaration.rebuilds ?? false);
    return answer;
  }

  /** The typed calls, for code that runs beside the leader (the engine tests): command ids made here. */
  const client = Object.fromEntries(
    (Object.keys(API) as CallName[])
      .filter((name) => API[name].kind !== 'admin')
      .map((name) => [name, (...args: unknown[]) => call(name, API[name].kind === 'command' ? [engine.newId(), ...args] : args)]),
  ) as EngineClient;

  return {
    call,
    client,
    /** Taking over: commit what a dead leader left streaming (never re-run it), then resume analysis. */
    start(): void {
      narrator.recover();
      indexSearchSoon();
      // What was deleted more than 30 days ago goes now, as one logged purge.
      if (purgeExpired(engine.ctx)) notify(true);
      // After the first screen: its queries go first.
      setTimeout(() => {
        if (!stopped) sync?.start();
      }, SYNC_START_DELAY_MS);
    },
    /** Looks for background work (after the tokenizer is warm, or whenever a caller wants). */
    kickAnalysis: () => analysis.kick(),
    /** The network came back, or the relay token changed: sync tries at once (issue 36, part 5). */
    syncRetry: () => sync?.retryNow(),
    /** Whether an analysis of this chat is being worked on now. */
    analysing: (chatId: string) => analysis.busy(chatId),
    /** Resolves when no reply streams and no analysis runs (tests; a tab handing over). */
    async idle(): Promise<void> {
      await narrator.idle();
      await analysis.idle();
    },
    /** This leader is going away: abort background calls and emit nothing more. */
    stop(): void {
      stopped = true;
      analysis.stop();
      sync?.stop();
    },
  };
}

