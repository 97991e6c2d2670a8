import { RelayHttpError } from './http-error.ts';

export type Priority = 'narrator' | 'analysis';

interface Waiter {
  cost: number;
  priority: Priority;
  grant: () => void;
  fail: (error: Error) => void;
}

/**
 * The account-wide gate in front of the upstream. Featherless fails requests that exceed the plan's
 * concurrency units, so the relay waits instead: a request runs when its model's cost fits in the
 * free units. Narrator requests go before analysis ones (the user is watching those); within one
 * priority, first come first served, and nothing overtakes a waiting request of its own priority.
 */
export class UpstreamQueue {
  private inUse = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private capacity: number,
    private readonly timeoutMs: number,
  ) {}

  setCapacity(units: number): void {
    this.capacity = Math.max(1, units);
    this.pump();
  }

  get stats() {
    return { capacity: this.capacity, inUse: this.inUse, waiting: this.waiting.length };
  }

  /** Resolves with a release function once `cost` units are free. Rejects on timeout or abort. */
  acquire(cost: number, priority: Priority, signal?: AbortSignal): Promise<() => void> {
    // A model bigger than the whole plan can still run, alone.
    const units = Math.min(Math.max(1, cost), this.capacity);
    return new Promise((resolve, reject) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.inUse -= units;
        this.pump();
      };
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        cost: units,
        priority,
        grant: () => {
          cleanup();
          this.inUse += units;
          resolve(release);
        },
        fail: (error) => {
          cleanup();
          reject(error);
        },
      };
      const remove = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        this.pump();
      };
      const timer = setTimeout(() => {
        remove();
        waiter.fail(
          new RelayHttpError(
            429,
            'queue_timeout',
            `The API plan's concurrency is in use and this request waited ${Math.round(this.timeoutMs / 1000)} s without a free slot. Try again shortly.`,
            { 'Retry-After': '5' },
          ),
        );
      }, this.timeoutMs);
      const onAbort = () => {
        remove();
        waiter.fail(new Error('aborted while queued'));
      };
      if (signal?.aborted) {
        clearTimeout(timer);
        reject(new Error('aborted while queued'));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      // Narrator requests queue behind other narrator requests but ahead of every analysis request.
      const at = priority === 'narrator' ? this.waiting.findIndex((w) => w.priority === 'analysis') : -1;
      if (at === -1) this.waiting.push(waiter);
      else this.waiting.splice(at, 0, waiter);
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.inUse + next.cost > this.capacity) return;
      this.waiting.shift();
      next.grant();
    }
  }
}

/** Featherless bills concurrency by model size: about 1 unit for <=15B, 2 for 24-34B, 4 for 70B+. */
export function modelCost(modelClassOrId: string | undefined): number {
  if (!modelClassOrId) return 1;
  if (/deepseek-(v3|r1)|kimi-k/i.test(modelClassOrId)) return 4;
  const sizes = [...modelClassOrId.matchAll(/(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])/g)].map((m) => Number(m[1]));
  const size = sizes.length ? Math.max(...sizes) : NaN;
  if (!Number.isFinite(size)) return 1;
  if (size >= 60) return 4;
  if (size >= 20) return 2;
  return 1;
}
