/// <reference lib="webworker" />
import * as Comlink from 'comlink';
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { allowOwnScriptsOnly } from '../browser/trusted-types.ts';
import type { TabCoordinator, TabStatus, TestHooks, WorkerEvent } from './tab-coordinator.ts';
import { persistentStorageAvailable, preloadSqlite } from './early-start.ts';

// SQLite compiles and the storage check runs while the engine loads: its schemas alone take a
// tenth of a second to build, and the app's first call would otherwise wait for all three in turn.
logPolicyViolations();
allowOwnScriptsOnly();
preloadSqlite();
void persistentStorageAvailable();
const coordinatorModule = import('./tab-coordinator.ts');

/** What the tab's UI can call on its worker, through Comlink. */
export interface DatabaseWorker {
  /** `events` hears the worker's news (status, change notices, published stream deltas), in order. */
  start(tabId: string, events: MessagePort, hooks?: TestHooks): Promise<TabStatus>;
  call(method: string, args: unknown[]): Promise<unknown>;
  /** The relay token this browser keeps (localStorage, which a worker cannot read), for the model calls this tab makes when it leads. */
  setRelayToken(token: string): void;
}

let coordinator: TabCoordinator | undefined;
let relayToken = '';

const api: DatabaseWorker = {
  async start(tabId, events, hooks) {
    const { TabCoordinator } = await coordinatorModule;
    if (coordinator) throw new Error('This worker was already started');
    coordinator = new TabCoordinator(tabId, (event: WorkerEvent) => events.postMessage(event), hooks, () => relayToken);
    // From now on a call goes straight to the coordinator (Comlink looks `call` up each time).
    api.call = coordinator.call.bind(coordinator);
    return coordinator.start();
  },
  call: () => Promise.reject(new Error('The database worker has not been started')),
  setRelayToken(token) {
    if (token === relayToken) return;
    relayToken = token;
    // A token fixed: the leader's sync, refused until now, tries at once.
    coordinator?.relayTokenChanged();
  },
};

Comlink.expose(api);
