import type { Engine } from '../engine/engine.ts';
import type { Kickoff } from '../engine/kickoff.ts';
import type { EventDraft } from '../engine/log/draft.ts';
import type { Settings } from '../engine/settings.ts';
import type { AnalysisQueue } from '../engine/analysis/queue.ts';
import type { NarratorService } from './narrator-service.ts';

/** What only the leader's worker has: the relay client, the narrator, the live streams, the analysis queue. */
export interface LeaderServices {
  narrator: NarratorService;
  analysis: AnalysisQueue;
  proposeKickoff(botId: string): Promise<{ proposal: Kickoff; fromModel: boolean }>;
}

/**
 * Everything a tab can ask of the database, run by whichever worker leads. Queries only read.
 * Commands take a `commandId` first: the calling tab makes it once, so a command re-sent after a
 * leader change is applied once (it becomes the first event's id).
 */
export function engineApi(engine: Engine, services: LeaderServices) {
  return {
    queries: {
      headSeq: () => engine.headSeq(),
      listBots: () => engine.listBots(),
      getBot: (id: string) => engine.getBot(id),
      getYou: () => engine.getYou(),
      listChats: () => engine.listChats(),
      transcript: (chatId: string, options?: { beforeSeq?: number | null; limit?: number }) => engine.transcript(chatId, options),
      drawer: (chatId: string) => engine.drawer(chatId),
      settings: () => engine.settings(),
      classifierFailures: () => engine.classifierFailures(),
      exportLog: () => engine.exportLog(),
      /** The text of the reply streaming in this chat right now, for a tab that opens mid-stream. */
      streamState: (chatId: string) => services.narrator.state(chatId),
      /** Asks the classifier to turn the bot's kickoff into a place, activities, a time and first feelings. */
      proposeKickoff: (botId: string) => services.proposeKickoff(botId),
      /** Background work still to do for this chat: the quiet "updating memories" marker. */
      analysisStatus: (chatId: string) => ({ pending: engine.analysis.pending(chatId).length }),
    },
    commands: {
      append: (commandId: string, drafts: EventDraft[]) => {
        const [first, ...rest] = drafts;
        if (!first) return [];
        return engine.append([{ ...first, id: first.id ?? commandId }, ...rest]).map((e) => ({ seq: e.seq, id: e.id, kind: e.kind }));
      },
      rewind: (commandId: string, chatId: string, fromSeq: number) => engine.rewind(chatId, fromSeq, commandId).seq,
      undoRewind: (commandId: string, chatId: string) => engine.undoRewind(chatId, commandId).seq,
      changeSettings: (commandId: string, patch: Partial<Settings>) => engine.changeSettings(patch, commandId),
      importLog: (_commandId: string, backup: unknown) => engine.importLog(backup),
      startChat: (commandId: string, botId: string, kickoff: Kickoff) => engine.startChat(botId, kickoff, commandId),
      sendTurn: (commandId: string, chatId: string, text: string) => services.narrator.send(commandId, chatId, text),
      regenerate: (commandId: string, chatId: string) => services.narrator.regenerate(commandId, chatId),
      stopTurn: (_commandId: string, chatId: string) => services.narrator.stop(chatId),
      pinMemory: (commandId: string, chatId: string, memoryId: string, pinned: boolean) => engine.drawerCommands.pinMemory(chatId, memoryId, pinned, commandId),
      closeScene: (commandId: string, chatId: string) => engine.drawerCommands.closeScene(chatId, commandId),
      advanceClock: (commandId: string, chatId: string, minutes: number) => engine.drawerCommands.advanceClock(chatId, minutes, commandId),
    },
  };
}

export type EngineApi = ReturnType<typeof engineApi>;
type Queries = EngineApi['queries'];
type Commands = EngineApi['commands'];
type DropFirst<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

/** What the UI sees: every query and command as an async function; command ids are made for it. */
export type EngineClient = {
  [K in keyof Queries]: (...args: Parameters<Queries[K]>) => Promise<Awaited<ReturnType<Queries[K]>>>;
} & {
  [K in keyof Commands]: (...args: DropFirst<Parameters<Commands[K]>>) => Promise<Awaited<ReturnType<Commands[K]>>>;
};

export const COMMAND_NAMES = [
  'append',
  'rewind',
  'undoRewind',
  'changeSettings',
  'importLog',
  'startChat',
  'sendTurn',
  'regenerate',
  'stopTurn',
  'pinMemory',
  'closeScene',
  'advanceClock',
] as const satisfies readonly (keyof Commands)[];
export const QUERY_NAMES = [
  'headSeq',
  'listBots',
  'getBot',
  'getYou',
  'listChats',
  'transcript',
  'drawer',
  'settings',
  'classifierFailures',
  'exportLog',
  'streamState',
  'proposeKickoff',
  'analysisStatus',
] as const satisfies readonly (keyof Queries)[];

export const isCommand = (method: string): method is (typeof COMMAND_NAMES)[number] => (COMMAND_NAMES as readonly string[]).includes(method);
export const isQuery = (method: string): method is (typeof QUERY_NAMES)[number] => (QUERY_NAMES as readonly string[]).includes(method);

/** The one query that can write: a failing classifier records a classifier_failed event. */
export const RECORDING_QUERIES = new Set(['proposeKickoff']);

/** Commands whose effect is a rebuild, not just appended events: the UI refetches the chat whole. */
export const REBUILDING_COMMANDS = new Set(['rewind', 'undoRewind', 'importLog', 'regenerate']);
