import '../engine/zod-without-eval.ts';
import { declarationOf } from '../engine/api.ts';
import { createIdClock } from '../engine/ids.ts';
import { createLeader, type Leader, type LeaderEvent } from '../engine/leader/leader.ts';
import { createRelayClient } from '../engine/llm/openai-client.ts';
import { openMemoryDatabase, openOpfsDatabase, type OpenDatabase } from './open-database.ts';
import { persistentStorageAvailable } from './early-start.ts';
import { listBackups } from './backup-store.ts';
import { checkBackupFile, gzipLines } from './backup-streams.ts';
import { BackupService } from './backup-service.ts';
import { CallRouter, RESEND_UNACKED_MS } from './call-router.ts';
import { whenQuiet } from './quiet.ts';
import { describeStorageFailure, isStorageFailure } from './storage-failure.ts';
import { syncThroughRelay } from './sync-service.ts';
import { TokenizerService } from './tokenizer-service.ts';
import { ChatListKeeper } from './chat-list-keeper.ts';
import type { ChatListItem } from '../engine/queries/chats.ts';
import { CHANNEL_NAME, DATABASE_LOCK, readMessage, type ChangeNotice, type DatabaseState, type LeaderInfo, type StorageMode, type TabMessage } from './protocol.ts';

export const STORAGE_TOPIC = 'storage';
/** How far the once-only rewrite of an older database has come, as it opens: `{ fraction }`, 0 to 1. */
export const REWRITE_TOPIC = 'rewrite';

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
  /** Hold the database this long before opening it, as a slow device would: what shows meanwhile. */
  openDelayMs?: number;
  /** Make a new database with pages of this size, as builds before 1 KiB pages did, and leave it so. */
  pageBytes?: number;
}

/** How long after taking the lead the SDK loads: after the first screen. */
const WARM_UP_AFTER_LEAD_MS = 300;
/** A pause in play this long (no write) empties the WAL's file (`shrinkWalWhenQuiet`). */
const WAL_SHRINK_PAUSE_MS = 5 * 60_000;

/**
 * One per tab, inside its worker. The worker holding the database lock leads: it opens the database
 * and runs every tab's calls; the others forward their calls over the BroadcastChannel. The lock's
 * release is the leader's death (no heartbeat), and the lock queue gives FIFO succession for free.
 * The UI never knows which tab leads.
 */
export class TabCoordinator {
  private readonly backups = new BackupService();
  private readonly tokenizer = new TokenizerService();
  private readonly chatList = new ChatListKeeper();
  private readonly ids = createIdClock(Date.now, (n) => crypto.getRandomValues(new Uint8Array(n)));
  private readonly newId = () => this.ids.next();
  private channel: BroadcastChannel | undefined;
  private database: OpenDatabase | undefined;
  private status: TabStatus = { role: 'starting', storage: null, database: null, epoch: null };
  private resendTimer: ReturnType<typeof setInterval> | undefined;
  private leader: Leader | undefined;
  /** When this tab's leader last ran a call: heavy background work waits for a quiet moment. */
  private lastActivity = Date.now();
  private lastWrite = 0;
  private walShrinkTimer: ReturnType<typeof setInterval> | undefined;
  private readonly calls: CallRouter;

  constructor(
    private readonly tabId: string,
    private readonly emit: (event: WorkerEvent) => void,
    private readonly hooks: TestHooks = {},
    private readonly relayToken: () => string = () => '',
  ) {
    this.calls = new CallRouter({
      tabId,
      newId: this.newId,
      post: (message) => this.post(message),
      leading: () => this.status.role === 'leader',
      epoch: () => this.status.epoch,
      run: (method, args) => this.run(method, args),
    });
  }

  /** The player set or changed the relay token (this tab's page, or another's through localStorage). */
  relayTokenChanged(): void {
    this.leader?.syncRetry();
  }

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
    this.resendTimer = setInterval(() => this.calls.resendUnacked(), RESEND_UNACKED_MS);
    // The network came back: sync tries at once instead of waiting out its backoff.
    self.addEventListener('online', () => this.leader?.syncRetry());
    this.setStatus({ ...this.status, role: 'follower' });
    void navigator.locks.request(DATABASE_LOCK, async () => {
      if (this.hooks.openDelayMs) await new Promise((resolve) => setTimeout(resolve, this.hooks.openDelayMs));
      await this.lead(await this.openOrReport());
      // Held until this worker ends: closing or crashing the tab releases it to the next in line.
      await new Promise<never>(() => {});
    });
    this.post({ type: 'who-leads', from: this.tabId });
    return this.status;
  }

  private async openOrReport(): Promise<OpenDatabase> {
    try {
      // Before anyone leads: this tab's UI hears it, and so do the tabs waiting for the database.
      const onRewrite = (fraction: number) => {
        const event = { type: 'publish', topic: REWRITE_TOPIC, seq: ++this.rewriteSeq, data: { fraction } } as const;
        this.emit(event);
        this.post({ ...event, epoch: this.tabId });
      };
      return await openOpfsDatabase({ onRewrite, ...(this.hooks.pageBytes ? { pageBytes: this.hooks.pageBytes } : {}) });
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const failed: OpenDatabase = {
        engine: undefined,
        storage: 'opfs',
        // The pool's files could not even be opened for want of room: space, not a fresh start, helps.
        state: { kind: isStorageFailure(error) ? 'no-room' : 'failed', detail },
        startFresh: () => openOpfsDatabase(),
        fileBytes: () => {
          throw new Error('The database could not be opened, so it cannot be copied.');
        },
        memoryUse: () => ({ wasmHeapBytes: 0, pageCacheLimitBytes: 0 }),
        shrinkWal: () => {},
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
          tokens: this.tokenizer.tokens,
          countedWith: this.tokenizer.countedWith,
          now: () => Date.now(),
          emit: (event) => this.broadcast(epoch, event),
          report: (message, error) => console.error(message, error),
          ...(database.storage === 'opfs' ? { sync: syncThroughRelay(this.relayToken) } : {}),
        })
      : undefined;
    this.setStatus({ role: 'leader', storage: database.storage, database: database.state, epoch });
    this.leader?.start();
    if (database.storage === 'opfs') {
      if (this.leader) this.keepChatList();
      else void this.chatList.forget();
    }
    // Once the tab has shown what it opened on, the SDK loads (a first Send needs it), then the
    // analyses a previous leader left unfinished run; the tokenizer helper starts when all is quiet.
    const leader = this.leader;
    setTimeout(() => {
      if (this.leader !== leader) return;
      if (leader) void import('openai').then(() => setTimeout(() => leader.kickAnalysis(), 500));
    }, WARM_UP_AFTER_LEAD_MS);
    const quiet = (of: Leader) => whenQuiet(of, { leading: () => this.leader, lastActivity: () => this.lastActivity });
    if (leader && !this.tokenizer.started) {
      void quiet(leader).then((still) => {
        if (still) this.tokenizer.start();
      });
    }
    if (leader && database.storage === 'opfs' && engine) this.backups.scheduleDaily(engine, () => quiet(leader));
    else this.backups.stopDaily();
    if (leader && database.storage === 'opfs') this.shrinkWalWhenQuiet(leader, () => quiet(leader));
    this.post({ type: 'leader-ready', ...this.leaderInfo() });
    // Calls this tab had sent to the old leader: run them here. Commands are idempotent by id.
    this.calls.runPendingHere();
  }

  /**
   * Empties the WAL's file once the leader is quiet after opening (what the last session left), and
   * again after each pause of `WAL_SHRINK_PAUSE_MS` without a write. Not after every turn: each
   * copy rewrites the pages the turns changed, which the WAL's own copy every 2,500 pages does for
   * many turns at once.
   */
  private shrinkWalWhenQuiet(leader: Leader, quiet: () => Promise<boolean>): void {
    const shrink = () =>
      void quiet().then((still) => {
        if (!still) return;
        try {
          this.database?.shrinkWal();
        } catch (error) {
          console.error('Emptying the WAL failed', error);
        }
      });
    shrink();
    clearInterval(this.walShrinkTimer);
    let lastWrite = this.lastWrite;
    this.walShrinkTimer = setInterval(() => {
      if (this.leader !== leader) return clearInterval(this.walShrinkTimer);
      // One shrink per pause: after a write, and once the pause is long enough.
      if (this.lastWrite !== lastWrite && Date.now() - this.lastWrite >= WAL_SHRINK_PAUSE_MS) {
        lastWrite = this.lastWrite;
        shrink();
      }
    }, WAL_SHRINK_PAUSE_MS / 4);
  }

  /** The leader's news, to every other tab and to this tab's UI, stamped with this leadership's epoch. */
  private broadcast(epoch: string, event: LeaderEvent) {
    if (this.status.role !== 'leader' || this.status.epoch !== epoch) return;
    if (event.type === 'changed') {
      this.lastWrite = Date.now();
      const notice: ChangeNotice = { epoch, ...event.change };
      this.post({ type: 'changed', ...notice });
      this.emit({ type: 'changed', notice });
      if (this.database?.storage === 'opfs' && (notice.rebuilt || notice.queries.includes('listChats'))) this.keepChatList();
    } else {
      this.post({ type: 'publish', epoch, topic: event.topic, seq: event.seq, data: event.data });
      this.emit(event);
    }
  }

  /** The list as it stands now, for the first paint of a tab that starts cold. */
  private keepChatList(): void {
    const { leader, database } = this;
    if (!leader || database?.state.kind !== 'ready') return;
    const { dbId } = database.state;
    void this.chatList.keep(async () => ({ version: 1, dbId, chats: (await leader.call('listChats', [])) as ChatListItem[] }));
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

  /** A call from this tab's UI: a command gets its id here, once, so every re-send of it is the same command. */
  call(method: string, args: unknown[]): Promise<unknown> {
    const declaration = declarationOf(method);
    if (!declaration) return Promise.reject(new Error(`Unknown engine call "${method}"`));
    return this.calls.send(method, declaration.kind === 'command' ? [this.newId(), ...args] : args);
  }

  /** Leader side: one call, run once per request id by the router, with the restore guard and storage failures in words. */
  private async run(method: string, args: unknown[]): Promise<unknown> {
    this.lastActivity = Date.now();
    const hooks = this.hooks;
    const delay = () => new Promise((resolve) => setTimeout(resolve, hooks.commandDelayMs));
    const kind = declarationOf(method)?.kind;
    if (kind === 'admin') return this.runAdmin(method, args);
    if (this.backups.restoring) throw new Error('A backup is being restored. Try again in a moment.');
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
  private rewriteSeq = 0;
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
      const summary = await checkBackupFile(engine, await this.backups.file(args[0]));
      return { ...summary, sameDatabase: summary.database === engine.identify().dbId };
    }
    if (method === 'databaseFile') {
      if (!database.engine) throw new Error(`Your stories cannot be opened (${database.state.kind}), so there is no database to copy.`);
      return new Blob([database.fileBytes() as Uint8Array<ArrayBuffer>], { type: 'application/vnd.sqlite3' });
    }
    if (method === 'listBackups') return database.storage === 'opfs' ? listBackups() : [];
    if (method === 'memoryUse') return database.memoryUse();
    if (method === 'storedBackup') return this.backups.file({ stored: String(args[0]) });
    try {
      if (method === 'startFresh') this.database = await database.startFresh();
      if (method === 'restoreBackup') await this.restore(await this.backups.file(args[0]));
    } finally {
      // The database under every tab may have changed (and a failed restore stopped the leader):
      // a new epoch makes every tab refetch everything.
      await this.lead(this.database!);
    }
    return this.leaderInfo();
  }

  private backup(reason: 'before-reset'): Promise<unknown> {
    return this.backups.backup(this.database?.storage === 'opfs' ? this.database.engine : undefined, reason);
  }

  private engineOrThrow() {
    const engine = this.database?.engine;
    if (!engine) throw new Error(`Your stories cannot be opened (${this.database?.state.kind ?? 'starting'}).`);
    return engine;
  }

  /** Replaces the log with a backup file's, with the leader stopped and no other call admitted. */
  private async restore(file: Blob): Promise<void> {
    this.leader?.stop();
    this.leader = undefined;
    await this.backups.restore(
      async () => {
        if (!this.database!.engine) this.database = await this.database!.startFresh();
        return this.engineOrThrow();
      },
      file,
      this.database?.storage === 'opfs',
    );
  }

  private onMessage(message: TabMessage) {
    if (this.calls.onMessage(message)) return;
    switch (message.type) {
      case 'who-leads':
        if (this.status.role === 'leader') this.post({ type: 'leader-ready', ...this.leaderInfo() });
        return;
      case 'leader-ready': {
        if (this.status.role === 'leader') return;
        const newEpoch = message.epoch !== this.status.epoch;
        this.setStatus({ role: 'follower', storage: message.storage, database: message.database, epoch: message.epoch });
        if (newEpoch) this.calls.resendAll();
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

  close() {
    this.leader?.stop();
    this.backups.stopDaily();
    clearInterval(this.resendTimer);
    this.channel?.close();
    this.database?.close();
  }
}
