import type { z } from 'zod';
import type { Db } from './db/port.ts';
import { classify, type ClassifyOptions, type ClassifyResult } from './llm/classify.ts';
import type { LlmClient } from './llm/port.ts';
import { migrate, type Migration } from './db/migrate.ts';
import type { LoggedEvent } from './events/define.ts';
import { createIdClock } from './ids.ts';
import { appendEvents, type LogContext } from './log/append.ts';
import type { EventDraft } from './log/draft.ts';
import { command } from './log/command.ts';
import { CommandRejectedError } from './log/errors.ts';
import { rebuild, rebuildChat } from './log/rebuild.ts';
import { ensureJournal, JOURNAL_KEPT_EVENTS, pruneJournal } from './log/journal.ts';
import { checkJsonBackup, exportLog, importLog } from './log/backup.ts';
import type { BackupEvent } from './log/backup-event.ts';
import { backupLines, createLinesReader } from './log/backup-lines.ts';
import { restoreStaging } from './log/replace-log.ts';
import { identify } from './db/identity.ts';
import { getBot, getImage, getYou, keptCard, listBots } from './queries/authored.ts';
import { cardForExport } from './cards/card-export.ts';
import { parseCardJson } from './cards/card-json.ts';
import { listChats } from './queries/chats.ts';
import { chatState } from './queries/chat-state.ts';
import { searchChats } from './queries/search.ts';
import { indexPendingSearch } from './queries/search-index.ts';
import { chatAsMarkdown, chatAsSillyTavern } from './queries/chat-export.ts';
import { effectiveSampler } from './sampler.ts';
import { chatSampler } from './queries/chat-state.ts';
import { chatTranscript } from './queries/transcript.ts';
import { checkSettingsPatch, readSettings, type Settings } from './settings.ts';
import { turnCommands } from './turn/turn-commands.ts';
import { turnEdits } from './turn/turn-edits.ts';
import { startChat } from './kickoff.ts';
import { importSillyTavernChat, type ChatImport, type ImportProgress } from './chat-import.ts';
import { narratorPrompt } from './turn/narrator-prompt.ts';
import { replyPrompt } from './turn/prompt-report.ts';
import type { TokenCounter } from './turn/tokens.ts';
import { pendingJobs, runJob, type AnalysisJob } from './analysis/jobs.ts';
import { storyCommands } from './story-commands.ts';
import { rewindCommands } from './rewind-commands.ts';
import { branchCommands } from './branch-commands.ts';
import { authoringCommands } from './authoring-commands.ts';
import { deletionCommands } from './deletion-commands.ts';
import { imageCommands } from './image-commands.ts';
import { loreCommands } from './lore/commands.ts';
import { chatLorebooks, editedCardLore, listLorebooks, lorebookDetail, type LorebookRef } from './lore/queries.ts';
import { searchMemories, type MemorySearch } from './memory/retrieval.ts';
import { mergeEvents, type MergeResult, type SyncedEvent } from './log/merge.ts';
import { syncLog } from './sync/sync-log.ts';

/** What the edges hand the engine: storage, time and randomness. Nothing else reaches in. */
export interface EngineDeps {
  db: Db;
  now: () => number;
  randomBytes: (length: number) => Uint8Array;
  /** How many of each chat's latest events the projection journal keeps; tests make it small to reach past it. */
  journalKeep?: number;
}

export type Engine = ReturnType<typeof createEngine>;

/** Applies pending migrations, then returns the engine over the migrated database. */
export async function openEngine(deps: EngineDeps, migrations: readonly Migration[]): Promise<Engine> {
  await migrate(deps.db, migrations, deps.now);
  return createEngine(deps);
}

export function createEngine(deps: EngineDeps) {
  const { db } = deps;
  const clock = createIdClock(deps.now, deps.randomBytes);
  const observeLog = () => {
    const newest = db.get<{ id: string | null }>('SELECT max(id) AS id FROM events')?.id;
    if (newest) clock.observe(newest);
  };
  observeLog();
  ensureJournal(db);
  // A database from before the journal (or restored without one): fill it once, so steering is quick from now on.
  if (!db.get('SELECT 1 AS x FROM projection_journal LIMIT 1') && db.get('SELECT 1 AS x FROM chats LIMIT 1')) rebuild(db);
  // ...and keep it to each chat's latest events, so it does not grow with a year of play.
  pruneJournal(db, deps.journalKeep ?? JOURNAL_KEPT_EVENTS);
  let deviceId: string | undefined;
  const ctx: LogContext = {
    db,
    now: deps.now,
    newId: () => clock.next(),
    reserveIds: (count) => {
      const random = deps.randomBytes(4);
      return { block: clock.reserve(count), tail: new DataView(random.buffer, random.byteOffset, 4).getUint32(0) };
    },
    deviceId: () => (deviceId ??= identify(db, ctx.newId, deps.now).dbId),
    journalKeep: deps.journalKeep ?? JOURNAL_KEPT_EVENTS,
  };

  const mergeHere = (events: readonly SyncedEvent[]): MergeResult => {
    const merged = mergeEvents(db, events);
    if (merged.added > 0) observeLog();
    return merged;
  };
  const sync = syncLog(db, mergeHere);

  const engine = {
    newId: ctx.newId,
    turns: turnCommands(ctx),
    edits: turnEdits(ctx),
    authoring: authoringCommands(ctx),
    storyCommands: storyCommands(ctx),
    deletion: deletionCommands(ctx),
    images: imageCommands(ctx),
    lore: loreCommands(ctx),
    listLorebooks: () => listLorebooks(db),
    lorebook: (ref: LorebookRef) => lorebookDetail(db, ref),
    chatLorebooks: (chatId: string) => chatLorebooks(db, chatId),
    /** The bot as a character card (V3, and a V2 copy), its kept card updated with what was edited here. */
    exportCard: (botId: string) => {
      const bot = getBot(db, botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      return { name: bot.name, avatar: bot.avatar, ...cardForExport(bot, keptCard(db, botId), editedCardLore(db, botId)) };
    },
    /** What the card a bot came from says about itself (its creator's notes are for the player, never the prompt). */
    botCardInfo: (botId: string) => {
      const kept = keptCard(db, botId);
      if (!kept) return null;
      const { spec, data } = parseCardJson(JSON.stringify(kept));
      return { spec, creator: data.creator, creatorNotes: data.creatorNotes, tags: data.tags, characterVersion: data.characterVersion, lorebookEntries: data.book?.entries.length ?? 0 };
    },
    /** A chat as a file: SillyTavern's JSON lines, or Markdown. */
    exportChat: (chatId: string, as: 'sillytavern' | 'markdown') => (as === 'markdown' ? chatAsMarkdown(db, chatId) : chatAsSillyTavern(db, chatId)),
    /** A stored picture's bytes (base64) and type, by its hash. */
    image: (hash: string) => getImage(db, hash),

    /**
     * The background work after replies (analysis, scene summaries): what is pending, and running
     * one job with the given relay client. The worker's queue decides when.
     */
    analysis: {
      pending: (chatId?: string) => pendingJobs(db, ctx.deviceId(), chatId),
      run: (llm: LlmClient, job: AnalysisJob, count: TokenCounter, signal?: AbortSignal) =>
        runJob(
          { ctx, settings: () => readSettings(db), classify: (schema, prompt, options) => engine.classify(llm, schema, prompt, options) },
          job,
          count,
          signal,
        ),
    },

    /** The sampling a chat's replies use: its own knobs over the global settings. */
    samplerFor: (chatId: string) => effectiveSampler(readSettings(db).sampler, chatSampler(db, chatId)),

    /** Search across every chat's story (the transcript's full-text index). */
    searchChats: (text: string) => searchChats(db, text),

    /** One pass of the search indexes over rows written since the last: how many still wait. */
    indexSearch: () => indexPendingSearch(db),

    /** A bot's memories of a chat that fit a query, only those its role there witnessed. */
    searchMemories: (search: MemorySearch) => searchMemories(db, search),

    /** The narrator's prompt for the reply started at `replySeq`, within the configured budgets. */
    narratorPrompt: (chatId: string, replySeq: number, count: TokenCounter, mode?: 'reply' | 'impersonate') =>
      narratorPrompt(db, chatId, replySeq, readSettings(db), count, mode),

    /** Starts a chat from a confirmed kickoff; returns the chat id. */
    startChat(botId: string, kickoff: unknown, commandId?: string): string {
      const bot = getBot(db, botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      if (bot.deleted) throw new CommandRejectedError(`${bot.name} is in Recently deleted: restore it to start a chat.`);
      return startChat(ctx, bot, kickoff, commandId);
    },

    /** A SillyTavern chat file as a new chat with the bot, wholly or not at all; returns the chat id. */
    importChat(input: ChatImport, commandId?: string, progress?: (p: ImportProgress) => void): string {
      const bot = getBot(db, input.botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      if (bot.deleted) throw new CommandRejectedError(`${bot.name} is in Recently deleted: restore it to import a chat with it.`);
      return importSillyTavernChat(ctx, bot, input, commandId, progress);
    },

    /** Appends a command's events and projects them atomically. */
    append(drafts: readonly EventDraft[]): LoggedEvent[] {
      return appendEvents(ctx, drafts);
    },

    /** "Branch from here" (`branch-commands.ts`). */
    ...branchCommands(ctx),

    /** Rewind, its preview, and restoring what a rewind hid (`rewind-commands.ts`). */
    ...rewindCommands(ctx),

    identify: () => identify(db, ctx.newId, deps.now),
    exportLog: () => exportLog(db, deps.now),
    /** The backup file's lines (format 3) for the log as it stands now; the edge compresses them. */
    backupLines: () => backupLines(db, { exportedAt: deps.now(), database: identify(db, ctx.newId, deps.now).dbId }),
    /** Checks a backup's lines as they come; `each` gets every checked event. */
    backupReader: (each?: (event: BackupEvent) => void) => createLinesReader(each),
    /** An earlier JSON backup (format 1 or 2), checked whole. */
    checkJsonBackup: (input: unknown) => checkJsonBackup({ deviceId: ctx.deviceId, randomBytes: deps.randomBytes }, input),
    /** Replacing the log with a checked backup's events: staged in batches, swapped in at once. */
    restore: (() => {
      const staging = restoreStaging(db);
      return {
        begin: staging.begin,
        add: staging.add,
        abandon: staging.abandon,
        commit(expected: number) {
          const done = staging.commit(expected);
          observeLog();
          return done;
        },
      };
    })(),
    /**
     * Events written on other devices, merged into this log (sync): new ones inserted and projected,
     * known ones skipped; the clock moves past them, so what this device writes next sorts after.
     */
    mergeEvents: mergeHere,
    /** Where this log stands with a sync server, and its side of push and pull (`sync/sync-log.ts`). */
    sync,
    /** This log's events after local seq `afterSeq`, in seq order, as they travel to other devices. */
    eventsAfter: sync.eventsAfter,
    importLog(backup: unknown) {
      const imported = importLog({ db, deviceId: ctx.deviceId, randomBytes: deps.randomBytes }, backup);
      observeLog();
      return imported;
    },

    settings: () => readSettings(db),

    /** Validates the change against the settings it would produce, then records it. */
    changeSettings(patch: Partial<Settings>, commandId?: string): Settings {
      return command(
        ctx,
        commandId,
        (stampFirst) => {
          const checked = checkSettingsPatch(readSettings(db), patch);
          appendEvents(ctx, stampFirst([{ kind: 'settings_changed', payload: { patch: checked } }]));
          return readSettings(db);
        },
        () => readSettings(db),
      );
    },

    /**
     * Structured output with the configured classifier model and fallbacks; each model that gives up
     * becomes a classifier_failed event, visible in Settings.
     */
    classify<S extends z.ZodType>(
      llm: LlmClient,
      schema: S,
      prompt: { system: string; user: string },
      options: ClassifyOptions<z.infer<S>> & { chatId?: string | null },
    ): Promise<ClassifyResult<z.infer<S>>> {
      const settings = readSettings(db);
      return classify(
        {
          llm,
          model: settings.classifierModel,
          fallbacks: settings.classifierFallbacks,
          timeoutMs: settings.classifierTimeoutMs,
          recordFailure: (failure) =>
            appendEvents(ctx, [{ kind: 'classifier_failed', chatId: options.chatId ?? null, payload: failure }]),
        },
        schema,
        prompt,
        options,
      );
    },

    classifierFailures: () =>
      db.all<{ seq: number; chat_id: string | null; ts: number; task: string; model: string; raw: string; error: string; attempts: number }>(
        'SELECT seq, chat_id, ts, task, model, raw, error, attempts FROM classifier_failures ORDER BY seq DESC LIMIT 100',
      ),

    /** Which chats and kinds the events after `seq` touched: what a change notice reports. */
    changesSince: (seq: number) =>
      db
        .all<{ kind: string; chat_id: string | null }>('SELECT DISTINCT kind, chat_id FROM events WHERE seq > ?', [seq])
        .map((r) => ({ kind: r.kind, chatId: r.chat_id })),

    rebuild: () => rebuild(db),
    /** What opening does: each chat's journal kept to its latest events. */
    pruneJournal: () => pruneJournal(db, ctx.journalKeep),
    rebuildChat: (chatId: string) => rebuildChat(db, chatId),
    headSeq: () => db.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM events')?.seq ?? 0,

    listBots: () => listBots(db),
    getBot: (id: string) => getBot(db, id),
    getYou: () => getYou(db),
    listChats: () => listChats(db),
    transcript: (chatId: string, options?: { beforeSeq?: number | null; limit?: number }) =>
      chatTranscript(db, chatId, options),
    chatState: (chatId: string) => chatState(db, chatId),
    /** The prompt that produced a reply (the inspector), or null for replies from before it was kept. */
    replyPrompt: (chatId: string, turnId: string) => replyPrompt(db, chatId, turnId),
  };
  return engine;
}
