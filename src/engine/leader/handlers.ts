import type { z } from 'zod';
import type { API, CommandName, QueryName } from '../api.ts';
import type { Engine } from '../engine.ts';
import type { Kickoff } from '../kickoff.ts';
import type { Settings } from '../settings.ts';
import type { EditTarget } from '../events/edit-marks.ts';
import type { NarratorService } from './narrator.ts';
import type { SyncRunner, SyncStatus } from './sync-runner.ts';
import { importTopic } from './stream.ts';
import type { LorebookRef } from '../lore/queries.ts';

export interface HandlerDeps {
  engine: Engine;
  narrator: NarratorService;
  proposeKickoff(botId: string): Promise<{ proposal: Kickoff; fromModel: boolean }>;
  /** Live state for the tabs (an import's progress), not written anywhere. */
  publish(topic: string, data: unknown): void;
  /** Sync with the relay's CouchDB, when this leader runs it. */
  sync: SyncRunner | null;
}

/** The arguments a handler receives once `checkCall` passed them: a command's id comes first. */
type HandlerArgs<N extends QueryName | CommandName> = N extends CommandName
  ? [commandId: string, ...z.output<(typeof API)[N]['args']>]
  : z.output<(typeof API)[N]['args']>;
type Handlers = { [N in QueryName | CommandName]: (...args: HandlerArgs<N>) => unknown };

/**
 * What each query and command of `API` does, run by the leader. Queries only read; commands take
 * the command id their tab made, which marks their first event (`command_id`).
 */
export function apiHandlers({ engine, narrator, proposeKickoff, publish, sync }: HandlerDeps) {
  return {
    headSeq: () => engine.headSeq(),
    listBots: () => engine.listBots(),
    getBot: (id: string) => engine.getBot(id),
    getYou: () => engine.getYou(),
    listChats: () => engine.listChats(),
    transcript: (chatId: string, options?: { beforeSeq?: number | null; limit?: number }) => engine.transcript(chatId, options),
    chatState: (chatId: string) => engine.chatState(chatId),
    /** What a rewind from `fromSeq` would undo, measured by doing it and rolling back. */
    previewRewind: (chatId: string, fromSeq: number) => engine.previewRewind(chatId, fromSeq),
    /** "Why this reply?": the prompt that produced it, by tier, with the memories and why they were chosen. */
    replyPrompt: (chatId: string, turnId: string) => engine.replyPrompt(chatId, turnId),
    settings: () => engine.settings(),
    classifierFailures: () => engine.classifierFailures(),
    exportLog: () => engine.exportLog(),
    /** The text of the reply streaming in this chat right now, for a tab that opens mid-stream. */
    streamState: (chatId: string) => narrator.state(chatId),
    /** Asks the classifier to turn the bot's kickoff into a place, activities, a time and first feelings. */
    proposeKickoff: (botId: string) => proposeKickoff(botId),
    /** "Impersonate": the player's next message drafted in their voice, for the composer; not sent. */
    impersonate: (chatId: string) => narrator.impersonate(chatId),
    prepareToSend: (chatId: string) => narrator.prepare(chatId),
    /** "Recently deleted": chats and bots that can still be restored, with when each goes for good. */
    recentlyDeleted: () => engine.deletion.recentlyDeleted(),
    image: (hash: string) => engine.image(hash) ?? null,
    exportCard: (botId: string) => engine.exportCard(botId),
    botCardInfo: (botId: string) => engine.botCardInfo(botId),
    exportChat: (chatId: string, as: 'sillytavern' | 'markdown') => engine.exportChat(chatId, as),
    searchChats: (text: string) => engine.searchChats(text),
    listLorebooks: () => engine.listLorebooks(),
    lorebook: (ref: LorebookRef) => engine.lorebook(ref),
    chatLorebooks: (chatId: string) => engine.chatLorebooks(chatId),
    /** Background work still to do for this chat: the quiet "updating memories" marker. */
    analysisStatus: (chatId: string) => ({ pending: engine.analysis.pending(chatId).length }),

    saveYou: (commandId: string, fields: unknown) => engine.authoring.saveYou(fields, commandId),
    /** Creates a bot (`botId` null) or saves a new version of it; answers the bot's id. */
    saveBot: (commandId: string, fields: unknown, botId: string | null) => engine.authoring.saveBot(fields, botId, commandId),
    importCard: (commandId: string, imported: { fields: unknown; card: unknown; spec: unknown; format: unknown }, botId: string | null) =>
      engine.authoring.importCard(imported, botId, commandId),
    addLorebook: (commandId: string, file: { text: string; fileName: string }) => engine.lore.addLorebook(file, commandId),
    /** An entry edited, or turned on or off, on the Lore page. */
    saveLoreEntry: (commandId: string, ref: LorebookRef, entry: unknown) => engine.lore.saveLoreEntry(ref, entry, commandId),
    removeLorebook: (commandId: string, lorebookId: string) => engine.lore.removeLorebook(lorebookId, commandId),
    attachLorebook: (commandId: string, chatId: string, lorebookId: string, attached: boolean) => engine.lore.attachLorebook(chatId, lorebookId, attached, commandId),
    /** "Reset…" on a bot, confirmed by its exact name; and its undo. */
    resetBot: (commandId: string, botId: string, confirmName: string) => engine.authoring.resetBot(botId, confirmName, commandId),
    undoBotReset: (commandId: string, botId: string) => engine.authoring.undoBotReset(botId, commandId),
    rewind: (commandId: string, chatId: string, fromSeq: number) => engine.rewind(chatId, fromSeq, commandId).seq,
    /** "Branch from here": a new chat with this one's story up to that turn; answers its id. */
    branchChat: (commandId: string, chatId: string, atSeq: number) => engine.branchChat(chatId, atSeq, commandId),
    /** Restores the rewind at `rewindSeq` (a transcript stub), or the latest one in force (the toast's Undo). */
    undoRewind: (commandId: string, chatId: string, rewindSeq?: number | null) => engine.undoRewind(chatId, commandId, rewindSeq).seq,
    changeSettings: (commandId: string, patch: Record<string, unknown>) => engine.changeSettings(patch as Partial<Settings>, commandId),
    importLog: (_commandId: string, backup: unknown) => engine.importLog(backup),
    startChat: (commandId: string, botId: string, kickoff: unknown) => engine.startChat(botId, kickoff, commandId),
    importChat: (commandId: string, input: { text: string; botId: string; title: string; progressId: string }) =>
      engine.importChat(input, commandId, (progress) => publish(importTopic(input.progressId), progress)),
    sendTurn: (commandId: string, chatId: string, text: string) => narrator.send(commandId, chatId, text),
    regenerate: (commandId: string, chatId: string) => narrator.regenerate(commandId, chatId),
    /** "Edit" on a turn: the latest reply's analysis is redone; an older turn changes only its text. */
    editTurn: (commandId: string, chatId: string, turnId: string, text: string) => engine.edits.editTurn(chatId, turnId, text, commandId),
    /** "Delete" on a turn (hidden: true) and its undo. */
    setTurnHidden: (commandId: string, chatId: string, turnId: string, hidden: boolean) => engine.edits.setTurnHidden(chatId, turnId, hidden, commandId),
    /** ‹ 2/3 ›: shows another version of the latest reply; the story state follows it. */
    chooseVersion: (commandId: string, chatId: string, number: number) => engine.turns.chooseVersion(chatId, number, commandId),
    /** "Continue": the latest reply goes on from its last word, streamed like any reply. */
    continueReply: (commandId: string, chatId: string) => narrator.continue(commandId, chatId),
    /** Stop from any tab: the reply keeps what it has, marked truncated. */
    stopTurn: (_commandId: string, chatId: string) => narrator.stop(chatId),
    pinMemory: (commandId: string, chatId: string, memoryId: string, pinned: boolean) => engine.storyCommands.pinMemory(chatId, memoryId, pinned, commandId),
    closeScene: (commandId: string, chatId: string) => engine.storyCommands.closeScene(chatId, commandId),
    /** A drawer value set by hand; refused with the field's rule when it breaks it. */
    editState: (commandId: string, chatId: string, target: Record<string, unknown>, field: string, value: unknown) =>
      engine.storyCommands.editState(chatId, target as EditTarget, field, value, commandId),
    /** "Undo last edit" in the drawer. */
    undoStateEdit: (commandId: string, chatId: string) => engine.storyCommands.undoStateEdit(chatId, commandId),
    advanceClock: (commandId: string, chatId: string, minutes: number) => engine.storyCommands.advanceClock(chatId, minutes, commandId),
    addImage: (commandId: string, image: { mime: string; width: number; height: number; data: string }) => engine.images.addImage(image, commandId),
    setChatSampler: (commandId: string, chatId: string, sampler: unknown) => engine.storyCommands.setChatSampler(chatId, sampler, commandId),
    setGuest: (commandId: string, chatId: string, botId: string, present: boolean) => engine.storyCommands.setGuest(chatId, botId, present, commandId),
    deleteChat: (commandId: string, chatId: string) => engine.deletion.deleteChat(chatId, commandId),
    restoreChat: (commandId: string, chatId: string) => engine.deletion.restoreChat(chatId, commandId),
    deleteBot: (commandId: string, botId: string) => engine.deletion.deleteBot(botId, commandId),
    restoreBot: (commandId: string, botId: string) => engine.deletion.restoreBot(botId, commandId),
    purgeNow: (commandId: string, target: { chatId?: string; botId?: string }) => engine.deletion.purgeNow(target, commandId),
    syncStatus: (): SyncStatus | null => sync?.status() ?? null,
    syncNow: () => {
      sync?.poke();
      return null;
    },
    setSyncPaused: (_commandId: string, paused: boolean) => {
      engine.sync.setPaused(paused);
      sync?.poke();
      return paused;
    },
    setSyncPassphrase: (_commandId: string, passphrase: string | null) => {
      engine.sync.setPassphrase(passphrase);
      sync?.reconnect();
      return passphrase !== null;
    },
  } satisfies Handlers;
}

export type ApiHandlers = ReturnType<typeof apiHandlers>;
type DropCommandId<A extends unknown[]> = A extends [string, ...infer Rest] ? Rest : never;

/**
 * What a tab's UI sees: every query and command as an async function. A command's id is made by
 * the tab's worker, so the UI never passes one.
 */
export type EngineClient = {
  [N in keyof ApiHandlers]: (
    ...args: N extends CommandName ? DropCommandId<Parameters<ApiHandlers[N]>> : Parameters<ApiHandlers[N]>
  ) => Promise<Awaited<ReturnType<ApiHandlers[N]>>>;
};
