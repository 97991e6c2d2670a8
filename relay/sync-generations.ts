import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { RelayHttpError } from './http-error.ts';
import type { SyncTarget } from './sync-target.ts';

/**
 * The sync database in generations, so the whole story can be written anew (sealed with a new
 * passphrase, or sealed for the first time) without a server that is ever half one way and half
 * the other. One device writes the next generation, a database of its own beside the current one,
 * under a lease; its commit is one atomic rename of the state file, after which the old database
 * is deleted whole (no plain document survives in it, nor any old revision). A crash of the device
 * leaves the current generation untouched and the next one to resume; a crash of the relay leaves
 * the state file before or after its rename, and a retired database still there is deleted at the
 * next start.
 */
const stateFile = z.object({ generation: z.number().int().min(1), retired: z.array(z.string()) });
type State = z.infer<typeof stateFile>;

/** A lease lapses when its device has been silent this long: another device may then start over. */
const LEASE_MS = 2 * 60 * 1000;

export interface Lease {
  id: string;
  /** The device writing it: the same device starting again (a new tab after a crash) takes it over. */
  device: string;
  generation: number;
  touchedAt: number;
}

export function createSyncGenerations(
  target: SyncTarget,
  file: string | null,
  options: { fetch?: typeof fetch; now?: () => number; log?: (line: string) => void; scrub: (text: string) => string; afterCommitWritten?: () => void },
) {
  const send = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  let state: State = { generation: 1, retired: [] };
  if (file && existsSync(file)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      json = undefined;
    }
    const parsed = stateFile.safeParse(json);
    if (!parsed.success) throw new Error(`The sync state file ${file} is not one this relay wrote; without it the relay cannot tell which database holds the story.`);
    state = parsed.data;
  }
  let lease: Lease | null = null;
  const committed: ((oldDatabase: string) => void)[] = [];

  const save = (next: State) => {
    if (file) {
      const temporary = `${file}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, file);
    }
    state = next;
  };

  /** Generation 1 is the configured database itself, so a relay from before generations finds its story. */
  const databaseOf = (generation: number) => (generation === 1 ? target.database : `${target.database}-g${generation}`);

  const couch = async (method: string, url: string): Promise<number> => {
    try {
      const response = await send(url, { method, headers: { accept: 'application/json', ...(target.authorization ? { authorization: target.authorization } : {}) } });
      await response.body?.cancel();
      return response.status;
    } catch (error) {
      throw new RelayHttpError(502, 'upstream_unreachable', `The sync server could not be reached: ${options.scrub(error instanceof Error ? error.message : String(error))}`);
    }
  };

  /** Retired databases are deleted, each forgotten once it is gone (or was never there). */
  async function deleteRetired(): Promise<void> {
    for (const url of [...state.retired]) {
      const status = await couch('DELETE', url).catch(() => 0);
      if (status === 200 || status === 202 || status === 404) {
        save({ ...state, retired: state.retired.filter((r) => r !== url) });
        options.log?.(`sync: retired database ${url.split('/').at(-1)} deleted`);
      }
    }
  }

  const live = (l: Lease | null): l is Lease => l !== null && now() - l.touchedAt < LEASE_MS;

  return {
    generation: () => state.generation,
    /** The database sync calls go to: the current generation's, or the next one's under its lease. */
    databaseFor(leaseId: string | undefined): string {
      if (leaseId === undefined) return databaseOf(state.generation);
      if (!lease || lease.id !== leaseId || !live(lease)) throw new RelayHttpError(409, 'rewrite_lost', 'This rewrite of the sync database is no longer the one under way: start it again.');
      lease.touchedAt = now();
      return databaseOf(lease.generation);
    },
    /**
     * Starts writing the next generation, or takes over one left behind (a crash: its database is
     * kept, for the device to resume; `fresh` empties it first). Refused while another device's
     * rewrite is alive.
     */
    async begin(fresh: boolean, device: string): Promise<{ lease: string; generation: number }> {
      if (live(lease) && lease.device !== device) throw new RelayHttpError(409, 'rewrite_busy', 'Another device is rewriting the sync database right now: try again when it has finished.');
      const generation = state.generation + 1;
      const url = databaseOf(generation);
      if (fresh) {
        const deleted = await couch('DELETE', url);
        if (deleted !== 200 && deleted !== 202 && deleted !== 404) throw new RelayHttpError(502, 'upstream_error', `The sync server did not delete the unfinished rewrite (${deleted}).`);
      }
      const created = await couch('PUT', url);
      if (created !== 201 && created !== 202 && created !== 412) throw new RelayHttpError(502, 'upstream_error', `The sync server did not create the next database (${created}).`);
      lease = { id: randomBytes(18).toString('base64url'), device, generation, touchedAt: now() };
      return { lease: lease.id, generation };
    },
    /** The next generation becomes the story's database, in one rename; then the old one is deleted. */
    async commit(leaseId: string): Promise<{ generation: number }> {
      if (!lease || lease.id !== leaseId || !live(lease)) throw new RelayHttpError(409, 'rewrite_lost', 'This rewrite of the sync database is no longer the one under way: start it again.');
      const old = databaseOf(state.generation);
      save({ generation: lease.generation, retired: [...state.retired, old] });
      lease = null;
      for (const listener of committed) listener(old);
      options.afterCommitWritten?.();
      await deleteRetired();
      return { generation: state.generation };
    },
    deleteRetired,
    /** Told each commit, with the database it retired: calls still waiting on it (a long-poll) end. */
    onCommit(listener: (oldDatabase: string) => void): void {
      committed.push(listener);
    },
  };
}

export type SyncGenerations = ReturnType<typeof createSyncGenerations>;
