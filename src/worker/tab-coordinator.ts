import { declarationOf } from '../engine/api.ts';
import { createIdClock } from '../engine/ids.ts';
import { createLeader, type Leader, type LeaderEvent } from '../engine/leader/leader.ts';
import { createRelayClient } from '../engine/llm/openai-client.ts';
import { couchDatabase, type Fetch } from '../engine/sync/couch.ts';
import { helperTokenCounter } from './token-helper.ts';
import { estimateTokens, type TokenCounter } from '../engine/turn/tokens.ts';
import { openMemoryDatabase, openOpfsDatabase, type OpenDatabase } from './open-database.ts';
import { persistentStorageAvailable } from './early-start.ts';
import { backupFile as storedBackupFile, listBackups, writeBackup, type BackupReason } from './backup-store.ts';
import { checkBackupFile, gzipLines, restoreBackupFile } from './backup-streams.ts';

import {
  CHANNEL_NAME,
  DATABASE_LOCK,
  readMessage,
  RemoteError,
  serializeError,
  type ChangeNotice,
  type DatabaseState,
  type LeaderInfo,
  type StorageMode,
  type TabMessage,
} from './protocol.ts';

export const STORAGE_TOPIC = 'storage';

/** A write the storage refused (SQLITE_IOERR, SQLITE_FULL: OPFS out of quota or failing). */
function isStorageFailure(error: unknown): boolean {
  const code = (error as { resultCode?: unknown })?.resultCode;
  if (typeof code === 'number' && [10, 13].includes(code & 0xff)) return true;
  return /QuotaExceeded|disk I\/O error|database or disk is full/i.test(error instanceof Error ? `${error.name} ${error.message}` : String(error));
}

async function describeStorageFailure(): Promise<string> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  const full = estimate?.usage !== undefined && estimate.quota !== undefined && estimate.quota > 0 && estimate.usage / estimate.quota > 0.9;
  const why = full ? "this browser's storage for the app is full" : 'the browser could not write to its storage';
  return `Your last change was not saved: ${why}. Free some space (or export a backup), then try again. Everything saved before is unchanged.`;
}

/** What the page hands over as a backup: a File or Blob, or the name of one kept in this browser. */
function isStored(value: unknown): value is { stored: string } {
  return typeof value === 'object' && value !== null && typeof (value as { stored?: unknown }).stored === 'string';
}


export interface TabStatus {
  role: 'starting' | 'leader' | 'follower';
  storage: StorageMode | null;
  database: DatabaseState | null;
  epoch: string | null;
}

export type WorkerEvent =
  | { type: 'status'; status: TabStatus }
  | { type: 'changed'; notice: ChangeNotice }
  | { type: 'publish'; topic: string; seq: number; data: unknown };

/** Test-only: make the leader slow, to hold a command "in flight" while a test closes its tab. */
export interface TestHooks {
  commandDelayMs?: number;
  phase?: 'before-commit' | 'after-commit';
  /** Behave as a browser without OPFS or Web Locks (a private window) would. */
  forceMemory?: boolean;
}

interface Pending {
  method: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  acked: boolean;
  sentAt: number;
  timeout: ReturnType<typeof setTimeout>;
}

const REQUEST_TIMEOUT_MS = 30_000;
const RESEND_UNACKED_MS = 1_000;
/** How long after taking the lead the SDK loads: after the first screen. */
const WARM_UP_AFTER_LEAD_MS = 300;
/** How long the leader must have run no call, streamed no reply and analysed nothing for `whenQuiet`. */
const QUIET_MS = 1_500;

/**
 * One per tab, inside its worker. The worker holding the database lock leads: it opens the database
 * and runs every tab's calls; the others forward their calls over the BroadcastChannel. The lock's
 * release is the leader's death (no heartbeat), and the lock queue gives FIFO succession for free.
 * The UI never knows which tab leads.
 */
export class TabCoordinator {
  private restoring = false;
  /** The backup being written, if any: a restore waits for it, so no file mixes two logs. */
  private backingUp: Promise<unknown> = Promise.resolve();
  private dailyTimer: ReturnType<typeof setInterval> | undefined;
  private readonly ids = createIdClock(Date.now, (n) => crypto.getRandomValues(new Uint8Array(n)));
  private readonly newId = () => this.ids.next();
  private channel: BroadcastChannel | undefined;
  private database: OpenDatabase | undefined;
  private status: TabStatus = { role: 'starting', storage: null, database: null, epoch: null };
  private readonly pending = new Map<string, Pending>();
  /** Answers the leader already gave, so a duplicate request is answered, not re-run. */
  private readonly answered = new Map<string, Promise<unknown>>();
  private resendTimer: ReturnType<typeof setInterval> | undefined;
  private leader: Leader | undefined;
  /** Counts tokens through a helper worker, once started in a quiet moment; kept across leaderships. */
  private tokenCounter: TokenCounter | undefined;
  /** When this tab's leader last ran a call: heavy background work waits for a quiet moment. */
  private lastActivity = Date.now();

  constructor(
    private readonly tabId: string,
    private readonly emit: (event: WorkerEvent) => void,
    private readonly hooks: TestHooks = {},
    private readonly relayToken: () => string = () => '',
  ) {}

  async start(): Promise<TabStatus> {
    if (this.hooks.forceMemory || !(await persistentStorageAvailable())) {
      // Private windows: this tab alone, in memory, and the UI says nothing will be saved.
      await this.lead(await openMemoryDatabase());
      return this.status;
    }
    this.channel = new BroadcastChannel(CHANNEL_NAME);
    this.channel.onmessage = (event) => {
      const message = readMessage(event.data);
      if (message) this.onMessage(message);
    };
    this.resendTimer = setInterval(() => this.resendUnacked(), RESEND_UNACKED_MS);
    this.setStatus({ ...this.status, role: 'follower' });
    void navigator.locks.request(DATABASE_LOCK, async () => {
      await this.lead(await this.openOrReport());
      // Held until this worker ends: closing or crashing the tab releases it to the next in line.
      await new Promise<never>(() => {});
    });
    this.post({ type: 'who-leads', from: this.tabId });
    return this.status;
  }

  private syncThroughRelay() {
    const remote = new URL('/sync', self.location.origin).href;
    const withToken: Fetch = (url, init) => {
      const token = this.relayToken();
      return fetch(url, { ...init, headers: { ...init?.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    };
    return { couch: couchDatabase(remote, withToken), remote };
  }

  private async openOrReport(): Promise<OpenDatabase> {
    try {
      return await openOpfsDatabase();
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const failed: OpenDatabase = {
        engine: undefined,
        storage: 'opfs',
        state: { kind: 'failed', detail },
        startFresh: () => openOpfsDatabase(),
        fileBytes: () => {
          throw new Error('The database could not be opened, so it cannot be copied.');
        },
        memoryUse: () => ({ wasmHeapBytes: 0, pageCacheLimitBytes: 0 }),
        close: () => {},
      };
      return failed;
    }
  }

  private async lead(database: OpenDatabase): Promise<void> {
    this.database = database;
    this.leader?.stop();
    const engine = database.engine;
    const epoch = this.newId();
    this.leader = engine
      ? createLeader({
          engine,
          llm: createRelayClient({ baseURL: new URL('/api/v1', self.location.origin).href, token: this.relayToken }),
          // A Send never waits for the tokenizer: a helper worker counts once it is running (started
          // by `whenQuiet`); until then lengths are estimated, a little high.
          tokens: async () => this.tokenCounter ?? estimateTokens,
          now: () => Date.now(),
          emit: (event) => this.broadcast(epoch, event),
          report: (message, error) => console.error(message, error),
          // Sync runs through the relay's /sync/ path with this tab's relay token; the relay holds
          // the server's credentials. A relay without a sync server answers 404, and sync says so.
          ...(database.storage === 'opfs' ? { sync: this.syncThroughRelay() } : {}),
        })
      : undefined;
    this.setStatus({ role: 'leader', storage: database.storage, database: database.state, epoch });
    this.leader?.start();
    // Once the tab has shown what it opened on, the SDK loads (a first Send needs it), then the
    // analyses a previous leader left unfinished run; the tokenizer helper starts when all is quiet.
    const leader = this.leader;
    setTimeout(() => {
      if (this.leader !== leader) return;
      if (leader) void import('openai').then(() => setTimeout(() => leader.kickAnalysis(), 500));
    }, WARM_UP_AFTER_LEAD_MS);
    if (leader && !this.tokenCounter) {
      void this.whenQuiet(leader).then((still) => {
        if (still) this.tokenCounter ??= helperTokenCounter();
      });
    }
    // A backup a day, written on the first open after 24 hours (and checked hourly while open).
    clearInterval(this.dailyTimer);
    if (leader && database.storage === 'opfs') {
      // One wait at a time: hours without a quiet moment must not stack up waits.
      let waiting = false;
      const backupWhenQuiet = () => {
        if (waiting) return;
        waiting = true;
        void this.whenQuiet(leader)
          .then((still) => (still ? this.dailyBackup() : undefined))
          .finally(() => (waiting = false));
      };
      backupWhenQuiet();
      this.dailyTimer = setInterval(backupWhenQuiet, 60 * 60_000);
    }
    this.post({ type: 'leader-ready', ...this.leaderInfo() });
    // Calls this tab had sent to the old leader: run them here. Commands are idempotent by id.
    for (const [id, pending] of [...this.pending]) {
      this.pending.delete(id);
      clearTimeout(pending.timeout);
      this.execute(id, pending.method, pending.args).then(pending.resolve, pending.reject);
    }
  }

  /**
   * Resolves once this leader has run no call, streamed no reply and analysed nothing for a while
   * (false if it stopped leading first). For work that takes the better part of a second: the
   * tokenizer helper (its megabyte of script and its encoder) and the daily backup (the whole log,
   * gzipped). Started with the tab, the helper slowed the first screen by a tenth of a second;
   * started on a timer, either landed in the middle of a reply sent just after the page opened and
   * held its first token back for a second (two cores: that work, the stream and the page).
   */
  private async whenQuiet(leader: Leader): Promise<boolean> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      if (this.leader !== leader) return false;
      const quiet = Date.now() - this.lastActivity >= QUIET_MS;
      const idle = await Promise.race([leader.idle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 0))]);
      if (quiet && idle && this.leader === leader) return true;
    }
  }

  /** The leader's news, to every other tab and to this tab's UI, stamped with this leadership's epoch. */
  private broadcast(epoch: string, event: LeaderEvent) {
    if (this.status.role !== 'leader' || this.status.epoch !== epoch) return;
    if (event.type === 'changed') {
      const notice: ChangeNotice = { epoch, ...event.change };
      this.post({ type: 'changed', ...notice });
      this.emit({ type: 'changed', notice });
    } else {
      this.post({ type: 'publish', epoch, topic: event.topic, seq: event.seq, data: event.data });
      this.emit(event);
    }
  }

  private leaderInfo(): LeaderInfo {
    return { epoch: this.status.epoch!, leaderTab: this.tabId, storage: this.database!.storage, database: this.database!.state };
  }

  private setStatus(status: TabStatus) {
    this.status = status;
    this.emit({ type: 'status', status });
  }

  private post(message: TabMessage) {
    this.channel?.postMessage(message);
  }

  /** A call from this tab's UI. */
  call(method: string, args: unknown[]): Promise<unknown> {
    const declaration = declarationOf(method);
    if (!declaration) return Promise.reject(new Error(`Unknown engine call "${method}"`));
    // The command id is made here, once, so every re-send of this call is the same command.
    const callArgs = declaration.kind === 'command' ? [this.newId(), ...args] : args;
    const id = this.newId();
    if (this.status.role === 'leader') return this.execute(id, method, callArgs);
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('The tab that holds your stories is not answering. Close other tabs of the app or reload this one.'));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { method, args: callArgs, resolve, reject, acked: false, sentAt: Date.now(), timeout });
      this.post({ type: 'request', id, from: this.tabId, method, args: callArgs });
    });
  }

  /** Leader side: runs a call once per request id, then tells every tab what changed. */
  private execute(requestId: string, method: string, args: unknown[]): Promise<unknown> {
    let answer = this.answered.get(requestId);
    if (!answer) {
      answer = this.run(method, args);
      this.answered.set(requestId, answer);
      if (this.answered.size > 500) this.answered.delete(this.answered.keys().next().value!);
    }
    return answer;
  }

  private async run(method: string, args: unknown[]): Promise<unknown> {
    this.lastActivity = Date.now();
    const hooks = this.hooks;
    const delay = () => new Promise((resolve) => setTimeout(resolve, hooks.commandDelayMs));
    const kind = declarationOf(method)?.kind;
    if (kind === 'admin') return this.runAdmin(method, args);
    if (this.restoring) throw new Error('A backup is being restored. Try again in a moment.');
    // A reset clears a bot's story state everywhere: keep a copy of everything first.
    if (method === 'resetBot' && (this.database?.engine?.headSeq() ?? 0) > 0) await this.backup('before-reset');
    const leader = this.leader;
    if (!leader) throw new Error(`Your stories cannot be opened (${this.database?.state.kind ?? 'starting'}).`);
    const command = kind === 'command';
    if (command && hooks.commandDelayMs && hooks.phase !== 'after-commit') await delay();
    let result: unknown;
    try {
      result = await leader.call(method, args);
    } catch (error) {
      if (!isStorageFailure(error)) throw error;
      // The transaction rolled back; every tab hears why the last change was not kept.
      const problem = await describeStorageFailure();
      this.publishStorage(problem);
      throw Object.assign(new Error(problem), { name: 'StorageError' });
    }
    if (command && hooks.commandDelayMs && hooks.phase === 'after-commit') await delay();
    return result;
  }

  private storageSeq = 0;
  /**
   * Tells every tab (through the leader's publish channel, topic "storage") that a write failed.
   * Tabs clear it themselves at the next change notice, a write that was kept, whoever leads then.
   */
  private publishStorage(problem: string) {
    if (this.status.epoch) this.broadcast(this.status.epoch, { type: 'publish', topic: STORAGE_TOPIC, seq: ++this.storageSeq, data: { problem } });
  }

  private async runAdmin(method: string, args: unknown[]): Promise<unknown> {
    const database = this.database;
    if (!database) throw new Error('The database is still opening.');
    if (method === 'databaseState') return this.leaderInfo();
    if (method === 'backupFile') return new Response(gzipLines(this.engineOrThrow().backupLines())).blob();
    if (method === 'checkBackup') {
      const engine = this.engineOrThrow();
      const summary = await checkBackupFile(engine, await this.backupArgument(args[0]));
      return { ...summary, sameDatabase: summary.database === engine.identify().dbId };
    }
    if (method === 'databaseFile') {
      if (!database.engine) throw new Error(`Your stories cannot be opened (${database.state.kind}), so there is no database to copy.`);
      return new Blob([database.fileBytes() as Uint8Array<ArrayBuffer>], { type: 'application/vnd.sqlite3' });
    }
    if (method === 'listBackups') return database.storage === 'opfs' ? listBackups() : [];
    if (method === 'memoryUse') return database.memoryUse();
    if (method === 'storedBackup') return storedBackupFile(String(args[0]));
    try {
      if (method === 'startFresh') this.database = await database.startFresh();
      if (method === 'restoreBackup') await this.restore(await this.backupArgument(args[0]));
    } finally {
      // The database under every tab may have changed (and a failed restore stopped the leader):
      // a new epoch makes every tab refetch everything.
      await this.lead(this.database!);
    }
    return this.leaderInfo();
  }

  /**
   * Writes a backup, one at a time. The daily one runs beside play (the file is read a page at a
   * time); a restore or a reset waits for the one it asked for.
   */
  private backup(reason: BackupReason): Promise<unknown> {
    const engine = this.database?.engine;
    if (!engine || this.database?.storage !== 'opfs') return Promise.resolve();
    const next = this.backingUp.catch(() => {}).then(() => writeBackup(engine, reason));
    this.backingUp = next.catch((error: unknown) => console.error(`The ${reason} backup could not be written`, error));
    return next;
  }

  private async dailyBackup(): Promise<void> {
    const engine = this.database?.engine;
    if (!engine || engine.headSeq() === 0 || this.restoring) return;
    const newest = (await listBackups().catch(() => [])).find((b) => b.reason === 'daily');
    if (newest && Date.now() - newest.writtenAt < 24 * 60 * 60_000) return;
    await this.backup('daily').catch(() => {});
  }

  private async backupArgument(value: unknown): Promise<Blob> {
    if (value instanceof Blob) return value;
    if (isStored(value)) return storedBackupFile(value.stored);
    throw new Error('Choose a backup file.');
  }

  private engineOrThrow() {
    const engine = this.database?.engine;
    if (!engine) throw new Error(`Your stories cannot be opened (${this.database?.state.kind ?? 'starting'}).`);
    return engine;
  }

  /**
   * Replaces the log with a backup file's. Nothing else runs meanwhile; what is here now is backed
   * up first (and checked), so a restore can always be taken back.
   */
  private async restore(file: Blob): Promise<void> {
    this.restoring = true;
    this.leader?.stop();
    this.leader = undefined;
    try {
      await this.backingUp;
      if (!this.database!.engine) this.database = await this.database!.startFresh();
      const engine = this.engineOrThrow();
      if (engine.headSeq() > 0) await this.backup('before-restore');
      await restoreBackupFile(engine, file);
    } finally {
      this.restoring = false;
    }
  }

  private onMessage(message: TabMessage) {
    switch (message.type) {
      case 'request': {
        if (this.status.role !== 'leader') return;
        this.post({ type: 'ack', id: message.id, to: message.from, epoch: this.status.epoch! });
        this.execute(message.id, message.method, message.args).then(
          (value) => this.post({ type: 'response', id: message.id, to: message.from, ok: true, value }),
          (error: unknown) => this.post({ type: 'response', id: message.id, to: message.from, ok: false, error: serializeError(error) }),
        );
        return;
      }
      case 'ack': {
        const pending = message.to === this.tabId ? this.pending.get(message.id) : undefined;
        if (pending) pending.acked = true;
        return;
      }
      case 'response': {
        const pending = message.to === this.tabId ? this.pending.get(message.id) : undefined;
        if (!pending) return;
        this.pending.delete(message.id);
        clearTimeout(pending.timeout);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(new RemoteError(message.error));
        return;
      }
      case 'who-leads':
        if (this.status.role === 'leader') this.post({ type: 'leader-ready', ...this.leaderInfo() });
        return;
      case 'leader-ready': {
        if (this.status.role === 'leader') return;
        const newEpoch = message.epoch !== this.status.epoch;
        this.setStatus({ role: 'follower', storage: message.storage, database: message.database, epoch: message.epoch });
        // A new leader knows nothing of calls sent to the old one: send every unanswered call again.
        if (newEpoch) for (const [id, pending] of this.pending) this.resend(id, pending);
        return;
      }
      case 'changed':
        if (this.status.role !== 'leader') this.emit({ type: 'changed', notice: message });
        return;
      case 'publish':
        if (this.status.role !== 'leader') this.emit({ type: 'publish', topic: message.topic, seq: message.seq, data: message.data });
        return;
    }
  }

  private resend(id: string, pending: Pending) {
    pending.acked = false;
    pending.sentAt = Date.now();
    this.post({ type: 'request', id, from: this.tabId, method: pending.method, args: pending.args });
  }

  /** A call posted while no tab led reached nobody; keep offering it until someone acks it. */
  private resendUnacked() {
    if (this.status.role === 'leader') return;
    const now = Date.now();
    for (const [id, pending] of this.pending) if (!pending.acked && now - pending.sentAt >= RESEND_UNACKED_MS) this.resend(id, pending);
  }

  close() {
    this.leader?.stop();
    clearInterval(this.resendTimer);
    this.channel?.close();
    this.database?.close();
  }
}
