/**
 * Messages between the tabs' workers on one BroadcastChannel. The channel does not buffer and does
 * not echo to its sender, so: every request has an id, the leader acks it, a new leader announces a
 * new epoch, and callers re-send what is still unanswered when the epoch changes. Every message is
 * checked with `readMessage` before it is used: another build of the app may share the channel.
 */
export const CHANNEL_NAME = 'roleplay-engine/tabs/v1';

/** The Web Lock whose holder leads: it alone opens the OPFS database files. */
export const DATABASE_LOCK = 'roleplay-engine/database';

export type StorageMode = 'opfs' | 'memory';

export type DatabaseState =
  | { kind: 'ready'; dbId: string; created: boolean }
  | { kind: 'corrupt'; detail: string }
  | { kind: 'failed'; detail: string }
  /** The storage refused the writes opening needs (a migration's copy, or the pool's files): nothing was changed. */
  | { kind: 'no-room'; detail: string };

export interface LeaderInfo {
  epoch: string;
  leaderTab: string;
  storage: StorageMode;
  database: DatabaseState;
}

/** What one committed command changed; the UI refetches only the queries it touches. */
export interface ChangeNotice {
  epoch: string;
  /** Head seq before and after: a notice whose fromSeq is not the last seen toSeq means a gap. */
  fromSeq: number;
  toSeq: number;
  chats: string[];
  tables: string[];
  /** The live queries that read a table the change touched, and those of them a global table (you, bots, settings) made stale everywhere. */
  queries: string[];
  global: string[];
  /** Projections of `chats` (or of everything when `chats` is empty) were rebuilt: refetch them all. */
  rebuilt: boolean;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
}

export type TabMessage =
  | { type: 'request'; id: string; from: string; method: string; args: unknown[] }
  | { type: 'ack'; id: string; to: string; epoch: string }
  | { type: 'response'; id: string; to: string; ok: true; value: unknown }
  | { type: 'response'; id: string; to: string; ok: false; error: SerializedError }
  | { type: 'who-leads'; from: string }
  | ({ type: 'leader-ready' } & LeaderInfo)
  | ({ type: 'changed' } & ChangeNotice)
  /** Leader-published live state (the token mirror of a streaming reply). */
  | { type: 'publish'; epoch: string; topic: string; seq: number; data: unknown };

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 200;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isSeq = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

function isDatabaseState(v: unknown): v is DatabaseState {
  if (!isObject(v)) return false;
  if (v.kind === 'ready') return isString(v.dbId) && typeof v.created === 'boolean';
  return (v.kind === 'corrupt' || v.kind === 'failed' || v.kind === 'no-room') && typeof v.detail === 'string';
}

/** Returns the message if it is one of ours and well formed, otherwise undefined. */
export function readMessage(data: unknown): TabMessage | undefined {
  if (!isObject(data)) return undefined;
  switch (data.type) {
    case 'request':
      return isString(data.id) && isString(data.from) && isString(data.method) && Array.isArray(data.args)
        ? (data as TabMessage)
        : undefined;
    case 'ack':
      return isString(data.id) && isString(data.to) && isString(data.epoch) ? (data as TabMessage) : undefined;
    case 'response':
      if (!isString(data.id) || !isString(data.to) || typeof data.ok !== 'boolean') return undefined;
      if (data.ok) return data as TabMessage;
      return isObject(data.error) && typeof data.error.message === 'string' ? (data as TabMessage) : undefined;
    case 'who-leads':
      return isString(data.from) ? (data as TabMessage) : undefined;
    case 'leader-ready':
      return isString(data.epoch) && isString(data.leaderTab) && (data.storage === 'opfs' || data.storage === 'memory') && isDatabaseState(data.database)
        ? (data as TabMessage)
        : undefined;
    case 'changed':
      return isString(data.epoch) && isSeq(data.fromSeq) && isSeq(data.toSeq) && isStringList(data.chats) && isStringList(data.tables) && isStringList(data.queries) && isStringList(data.global) && typeof data.rebuilt === 'boolean'
        ? (data as TabMessage)
        : undefined;
    case 'publish':
      return isString(data.epoch) && isString(data.topic) && isSeq(data.seq) ? (data as TabMessage) : undefined;
    default:
      return undefined;
  }
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** An error that crossed a thread or tab boundary, with its original name kept for the UI. */
export class RemoteError extends Error {
  readonly code: string | undefined;
  constructor(serialized: SerializedError) {
    super(serialized.message);
    this.name = serialized.name;
    this.code = serialized.code;
  }
}
