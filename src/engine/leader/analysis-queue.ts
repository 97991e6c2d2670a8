import type { AnalysisJob } from '../analysis/jobs.ts';

export interface QueueDeps {
  pending(chatId?: string): AnalysisJob[];
  run(job: AnalysisJob, signal: AbortSignal): Promise<boolean>;
  /** After each job: tell the tabs what changed. */
  committed(): void;
  /** A job that threw (a bug, a database error): it is skipped until the next leader tries it. */
  failed?(job: AnalysisJob, error: unknown): void;
  /** Chats analysed at once. Each chat runs one job at a time, in log order. */
  maxChats?: number;
}

/**
 * The leader's background queue. One job in flight per chat (so a chat's clock, feelings and
 * scenes change in story order, and the relay sees at most one analysis per chat), a few chats at
 * once. It holds no state worth losing: `kick()` re-reads what is pending from the database.
 */
export class AnalysisQueue {
  private readonly running = new Map<string, Promise<void>>();
  private readonly broken = new Set<string>();
  private readonly controller = new AbortController();

  constructor(private readonly deps: QueueDeps) {}

  /**
   * Starts work on the chats with pending jobs, up to the limit: those named (a change's chats, after
   * every commit: a job becomes pending only by a change in its chat), else every chat (at start,
   * and when a slot frees). Reading every chat's last replies after each commit was most of a kick.
   */
  kick(chats?: readonly string[]): void {
    if (this.controller.signal.aborted) return;
    const limit = this.deps.maxChats ?? 2;
    const pending = chats ? chats.filter((chat) => !this.running.has(chat)).flatMap((chat) => this.deps.pending(chat)) : this.deps.pending();
    for (const job of pending) {
      if (this.running.size >= limit) return;
      if (this.running.has(job.chatId) || this.broken.has(job.key)) continue;
      this.running.set(job.chatId, this.work(job.chatId));
    }
  }

  /** Whether a job of this chat is being worked on now. */
  busy(chatId: string): boolean {
    return this.running.has(chatId);
  }

  /** Resolves when nothing is running (tests; a leader handing over). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /** The leader is going away: abort the calls in flight; their jobs stay pending for the next one. */
  stop(): void {
    this.controller.abort();
  }

  private async work(chatId: string): Promise<void> {
    const tried = new Set<string>();
    // Yield first, so `running` holds this chat before anything below can remove it.
    await Promise.resolve();
    try {
      for (;;) {
        const job = this.deps.pending(chatId).find((j) => !this.broken.has(j.key));
        if (!job || this.controller.signal.aborted) return;
        // A job still pending after its run wrote nothing would loop forever: give up on it here.
        if (tried.has(job.key)) {
          this.broken.add(job.key);
          continue;
        }
        tried.add(job.key);
        try {
          await this.deps.run(job, this.controller.signal);
        } catch (error) {
          this.broken.add(job.key);
          this.deps.failed?.(job, error);
        }
        this.deps.committed();
      }
    } finally {
      this.running.delete(chatId);
      // Another chat may have been waiting for a free slot.
      queueMicrotask(() => this.kick());
    }
  }
}
