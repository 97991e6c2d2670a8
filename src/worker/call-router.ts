import { RemoteError, serializeError, type TabMessage } from './protocol.ts';

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
export const RESEND_UNACKED_MS = 1_000;

export interface CallRouterDeps {
  tabId: string;
  newId: () => string;
  post: (message: TabMessage) => void;
  leading: () => boolean;
  epoch: () => string | null;
  /** Runs a call on this tab's leader. */
  run: (method: string, args: unknown[]) => Promise<unknown>;
}

/**
 * Calls and their resends. This tab's calls run here when it leads; otherwise they go to the
 * leader over the channel, are offered again until acked, and re-sent whole to a new leader. The
 * leader runs each request id once and keeps its answer, so a re-sent call is answered, not re-run.
 */
export class CallRouter {
  private readonly pending = new Map<string, Pending>();
  /** Answers the leader already gave, so a duplicate request is answered, not re-run. */
  private readonly answered = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: CallRouterDeps) {}

  /** A call from this tab's UI; `callArgs` carries its command id when it is a command. */
  send(method: string, callArgs: unknown[]): Promise<unknown> {
    const id = this.deps.newId();
    if (this.deps.leading()) return this.execute(id, method, callArgs);
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('The tab that holds your stories is not answering. Close other tabs of the app or reload this one.'));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { method, args: callArgs, resolve, reject, acked: false, sentAt: Date.now(), timeout });
      this.deps.post({ type: 'request', id, from: this.deps.tabId, method, args: callArgs });
    });
  }

  /** Leader side: runs a call once per request id. */
  execute(requestId: string, method: string, args: unknown[]): Promise<unknown> {
    let answer = this.answered.get(requestId);
    if (!answer) {
      answer = this.deps.run(method, args);
      this.answered.set(requestId, answer);
      if (this.answered.size > 500) this.answered.delete(this.answered.keys().next().value!);
    }
    return answer;
  }

  /** This tab took the lead: the calls it had sent to the old leader run here (commands are idempotent by id). */
  runPendingHere(): void {
    for (const [id, pending] of [...this.pending]) {
      this.pending.delete(id);
      clearTimeout(pending.timeout);
      this.execute(id, pending.method, pending.args).then(pending.resolve, pending.reject);
    }
  }

  /** A new leader knows nothing of calls sent to the old one: send every unanswered call again. */
  resendAll(): void {
    for (const [id, pending] of this.pending) this.resend(id, pending);
  }

  /** A call posted while no tab led reached nobody; keep offering it until someone acks it. */
  resendUnacked(): void {
    if (this.deps.leading()) return;
    const now = Date.now();
    for (const [id, pending] of this.pending) if (!pending.acked && now - pending.sentAt >= RESEND_UNACKED_MS) this.resend(id, pending);
  }

  /** The channel's request, ack and response messages; answers whether the message was one. */
  onMessage(message: TabMessage): boolean {
    switch (message.type) {
      case 'request': {
        if (!this.deps.leading()) return true;
        this.deps.post({ type: 'ack', id: message.id, to: message.from, epoch: this.deps.epoch()! });
        this.execute(message.id, message.method, message.args).then(
          (value) => this.deps.post({ type: 'response', id: message.id, to: message.from, ok: true, value }),
          (error: unknown) => this.deps.post({ type: 'response', id: message.id, to: message.from, ok: false, error: serializeError(error) }),
        );
        return true;
      }
      case 'ack': {
        const pending = message.to === this.deps.tabId ? this.pending.get(message.id) : undefined;
        if (pending) pending.acked = true;
        return true;
      }
      case 'response': {
        const pending = message.to === this.deps.tabId ? this.pending.get(message.id) : undefined;
        if (!pending) return true;
        this.pending.delete(message.id);
        clearTimeout(pending.timeout);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(new RemoteError(message.error));
        return true;
      }
      default:
        return false;
    }
  }

  private resend(id: string, pending: Pending) {
    pending.acked = false;
    pending.sentAt = Date.now();
    this.deps.post({ type: 'request', id, from: this.deps.tabId, method: pending.method, args: pending.args });
  }
}
