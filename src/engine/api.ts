import { z } from 'zod';
import type { ProjectedTable } from './events/tables.ts';

/**
 * Every call a tab can make, declared once: its kind, the schema of its arguments and its flags.
 * The leader validates each request against this table before running it (a malformed call from
 * another tab gets a clear error), the worker knows from it which calls are commands (they get a
 * command id) and the UI client is built from its names. The implementations are in
 * `leader/handlers.ts`, typed against these schemas; go-to-definition on a client call lands there.
 *
 * - `query`: reads only. With `reads` it is live: a screen may keep it and refetches it when a change
 *   touches one of those tables (tests/engine/query-reads.test.ts holds `reads` to what SQLite says
 *   the query reads). Without, it is asked once for an action (a preview, an export, a draft) and
 *   cannot be kept live. `records`: it may append an event all the same (a failing classifier).
 * - `command`: writes. The calling tab makes its command id once, so a re-send is applied once.
 *   `rebuilds`: its effect is a rebuild of the chat's projections, not just appended events.
 * - `admin`: replaces the database under every tab; run by the worker, not the engine.
 */
export interface CallDeclaration {
  kind: 'query' | 'command' | 'admin';
  args: z.ZodTuple;
  /** For live queries: the projected tables its answer comes from. A live query refetches when a change touches one. */
  reads?: readonly ProjectedTable[];
  records?: true;
  rebuilds?: true;
}

const id = z.string().min(1).max(200);
const seq = z.number().int().nonnegative();
const none = z.tuple([]);
/** A lorebook of its own, or a bot's card book. */
const lorebookRef = z.union([z.object({ lorebookId: id }).strict(), z.object({ botId: id }).strict()]);

export const API = {
  headSeq: { kind: 'query', args: none },
  listBots: { kind: 'query', args: none, reads: ['bots'] },
  getBot: { kind: 'query', args: z.tuple([id]), reads: ['bots'] },
  getYou: { kind: 'query', args: none, reads: ['you'] },
  listChats: { kind: 'query', args: none, reads: ['chats', 'chat_state', 'transcript', 'bots'] },
  transcript: {
    kind: 'query',
    args: z.tuple([id, z.object({ beforeSeq: seq.nullable().optional(), limit: z.number().int().min(1).max(500).optional() }).optional()]),
    reads: ['transcript', 'chats', 'bots', 'you', 'visibility'],
  },
  chatState: {
    kind: 'query',
    args: z.tuple([id]),
    reads: ['chats', 'chat_state', 'containers', 'scenes', 'activity', 'edges', 'edge_facts', 'memories', 'bots', 'you', 'state_edits', 'visibility'],
  },
  /** What a rewind from `fromSeq` would undo, measured by doing it and rolling back. */
  previewRewind: { kind: 'query', args: z.tuple([id, seq]) },
  replyPrompt: { kind: 'query', args: z.tuple([id, id]) },
  settings: { kind: 'query', args: none, reads: ['settings'] },
  classifierFailures: { kind: 'query', args: none, reads: ['classifier_failures'] },
  exportLog: { kind: 'query', args: none },
  streamState: { kind: 'query', args: z.tuple([id]) },
  proposeKickoff: { kind: 'query', args: z.tuple([id]), records: true },
  /** A draft of the player's next message, written by the narrator model; nothing is recorded. */
  impersonate: { kind: 'query', args: z.tuple([id]) },
  /**
   * The player started writing in this chat: the leader gets the first Send's work ready (the SDK
   * loaded and built, the chat's prompt assembled once and thrown away). Writes nothing.
   */
  prepareToSend: { kind: 'query', args: z.tuple([id]) },
  recentlyDeleted: { kind: 'query', args: none, reads: ['chats', 'bots'] },
  /** A bot as a character card to save: V3 and a V2 copy. */
  exportCard: { kind: 'query', args: z.tuple([id]), reads: ['bots', 'bot_cards', 'lore_entries'] },
  botCardInfo: { kind: 'query', args: z.tuple([id]), reads: ['bot_cards'] },
  /** A chat as a file to save: SillyTavern JSON lines or Markdown. */
  exportChat: { kind: 'query', args: z.tuple([id, z.enum(['sillytavern', 'markdown'])]) },
  /** A stored picture, by hash: never changes once stored. */
  image: { kind: 'query', args: z.tuple([z.string().max(64)]), reads: ['images'] },
  /** Search across every chat's story; hits link to their turn. */
  searchChats: { kind: 'query', args: z.tuple([z.string().max(500)]), reads: ['transcript', 'chats', 'bots', 'you'] },
  /** The Lore page: lorebooks of their own and the bots' card books, with their entries. */
  listLorebooks: { kind: 'query', args: none, reads: ['lorebooks', 'lore_entries', 'bot_cards', 'bots'] },
  lorebook: { kind: 'query', args: z.tuple([lorebookRef]), reads: ['lorebooks', 'lore_entries', 'bot_cards', 'bots'] },
  /** The lorebooks that can be attached to this chat, and which are. */
  chatLorebooks: { kind: 'query', args: z.tuple([id]), reads: ['lorebooks', 'chat_lorebooks'] },
  analysisStatus: { kind: 'query', args: z.tuple([id]), reads: ['transcript', 'scenes', 'memories', 'scene_summaries'] },

  // The payloads below are checked by the command itself, with messages written for the user.
  saveYou: { kind: 'command', args: z.tuple([z.unknown()]) },
  saveBot: { kind: 'command', args: z.tuple([z.unknown(), id.nullable()]) },
  /** A bot from a character card, the card kept whole; `botId` updates the bot the card made before. */
  importCard: { kind: 'command', args: z.tuple([z.object({ fields: z.unknown(), card: z.unknown(), spec: z.unknown(), format: z.unknown() }), id.nullable()]) },
  /** A lorebook file (SillyTavern world info, a V3 lorebook) added whole; answers its id. */
  addLorebook: { kind: 'command', args: z.tuple([z.object({ text: z.string().max(20 * 1024 * 1024), fileName: z.string().max(500) })]) },
  saveLoreEntry: { kind: 'command', args: z.tuple([lorebookRef, z.unknown()]) },
  attachLorebook: { kind: 'command', args: z.tuple([id, id, z.boolean()]) },
  removeLorebook: { kind: 'command', args: z.tuple([id]) },
  resetBot: { kind: 'command', args: z.tuple([id, z.string().max(200)]), rebuilds: true },
  undoBotReset: { kind: 'command', args: z.tuple([id]), rebuilds: true },
  rewind: { kind: 'command', args: z.tuple([id, seq]), rebuilds: true },
  branchChat: { kind: 'command', args: z.tuple([id, seq]) },
  undoRewind: { kind: 'command', args: z.tuple([id, seq.nullable().optional()]), rebuilds: true },
  changeSettings: { kind: 'command', args: z.tuple([z.record(z.string(), z.unknown())]) },
  importLog: { kind: 'command', args: z.tuple([z.unknown()]), rebuilds: true },
  startChat: { kind: 'command', args: z.tuple([id, z.unknown()]) },
  /**
   * A SillyTavern chat file (its text) as a new chat with a bot. Progress goes out on
   * `importTopic(progressId)`, an id the calling tab made to listen on.
   */
  importChat: {
    kind: 'command',
    args: z.tuple([z.object({ text: z.string().max(200_000_000), botId: id, title: z.string().max(200), progressId: z.string().max(100) })]),
  },
  sendTurn: { kind: 'command', args: z.tuple([id, z.string()]) },
  regenerate: { kind: 'command', args: z.tuple([id]), rebuilds: true },
  editTurn: { kind: 'command', args: z.tuple([id, id, z.string().max(100_000)]), rebuilds: true },
  setTurnHidden: { kind: 'command', args: z.tuple([id, id, z.boolean()]) },
  chooseVersion: { kind: 'command', args: z.tuple([id, z.number().int().min(1)]), rebuilds: true },
  continueReply: { kind: 'command', args: z.tuple([id]), rebuilds: true },
  stopTurn: { kind: 'command', args: z.tuple([id]) },
  pinMemory: { kind: 'command', args: z.tuple([id, id, z.boolean()]) },
  closeScene: { kind: 'command', args: z.tuple([id]) },
  editState: { kind: 'command', args: z.tuple([id, z.record(z.string(), z.unknown()), z.string().max(40), z.unknown()]) },
  undoStateEdit: { kind: 'command', args: z.tuple([id]), rebuilds: true },
  advanceClock: { kind: 'command', args: z.tuple([id, z.number()]) },
  /** A guest bot arrives in the chat (true) or leaves it (false). */
  setGuest: { kind: 'command', args: z.tuple([id, id, z.boolean()]) },
  /** Stores a picture the browser cropped and resized; answers its hash. */
  addImage: {
    kind: 'command',
    args: z.tuple([z.object({ mime: z.string().max(40), width: z.number().int(), height: z.number().int(), data: z.string().max(1_500_000) })]),
  },
  /** This chat's own sampling knobs (an empty object: follow the settings again). */
  setChatSampler: { kind: 'command', args: z.tuple([id, z.unknown()]) },
  deleteChat: { kind: 'command', args: z.tuple([id]) },
  restoreChat: { kind: 'command', args: z.tuple([id]) },
  deleteBot: { kind: 'command', args: z.tuple([id]) },
  restoreBot: { kind: 'command', args: z.tuple([id]) },
  /** "Delete forever": a purge of one deleted chat or bot, now rather than after 30 days. */
  purgeNow: { kind: 'command', args: z.tuple([z.object({ chatId: id.optional(), botId: id.optional() })]), rebuilds: true },

  /** Where this device stands with the sync server (also published on the `sync` topic as it changes). */
  syncStatus: { kind: 'query', args: none },
  /** "Sync now": cuts the wait for the server's next change short. */
  syncNow: { kind: 'query', args: none },
  /** "Pause sync on this device", and its undo: a local choice, not an event. */
  setSyncPaused: { kind: 'command', args: z.tuple([z.boolean()]) },
  /** The passphrase this device encrypts synced stories with (null: none); kept on this device only. */
  setSyncPassphrase: { kind: 'command', args: z.tuple([z.string().min(8).max(500).nullable()]) },

  startFresh: { kind: 'admin', args: none },
  /** A backup file (Blob) is checked and, after a backup of what is here now, replaces the log. */
  restoreBackup: { kind: 'admin', args: z.tuple([z.unknown()]) },
  /** A backup file of the log as it stands (a Blob, gzip). */
  backupFile: { kind: 'admin', args: none },
  /** What a backup file holds, checked through; nothing is written. */
  checkBackup: { kind: 'admin', args: z.tuple([z.unknown()]) },
  /** A consistent copy of the SQLite file (a Blob), for other tools. */
  databaseFile: { kind: 'admin', args: none },
  /** The backups kept in this browser, newest first. */
  listBackups: { kind: 'admin', args: none },
  /** One of them, as a File to download. */
  storedBackup: { kind: 'admin', args: z.tuple([z.string().max(200)]) },
  databaseState: { kind: 'admin', args: none },
  /** What the database holds in the leader's memory: SQLite's WebAssembly heap and its page cache. */
  memoryUse: { kind: 'admin', args: none },
} as const satisfies Record<string, CallDeclaration>;

export type CallName = keyof typeof API;
type KindOf<K extends string> = { [N in CallName]: (typeof API)[N]['kind'] extends K ? N : never }[CallName];
export type QueryName = KindOf<'query'>;
export type CommandName = KindOf<'command'>;

/** The queries a screen may keep live: those that declare what they read. */
export type LiveQueryName = { [N in QueryName]: (typeof API)[N] extends { reads: readonly string[] } ? N : never }[QueryName];

/** The tables a live query reads. */
export const readsOf = (query: LiveQueryName): readonly string[] => (API[query] as CallDeclaration).reads ?? [];

export function declarationOf(method: string): CallDeclaration | undefined {
  return Object.hasOwn(API, method) ? (API as Record<string, CallDeclaration>)[method] : undefined;
}

/** A call another tab (or a bug) sent that the table does not allow: refused before anything runs. */
export class BadCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadCallError';
  }
}

/** Checks a request against the table: the method exists, and its arguments fit the schema. */
export function checkCall(method: string, args: unknown): { declaration: CallDeclaration; args: unknown[] } {
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
  return { declaration, args: command ? [first, ...(parsed.data as unknown[])] : (parsed.data as unknown[]) };
}
