import type { MergeResult, SyncedEvent } from '../log/merge.ts';
import type { CouchDatabase, SyncGenerations } from './couch.ts';
import { SyncError } from './sync-error.ts';
import { docFor, eventOf } from './event-docs.ts';
import { ENCRYPTION_DOC, newEncryption, openEncryption, type EncryptionRecord, type Sealer } from './encryption.ts';
import type { syncLog } from './sync-log.ts';

export interface ReplicatorDeps {
  couch: CouchDatabase;
  /** Names the server in this log's checkpoints (its URL and database). */
  remote: string;
  log: ReturnType<typeof syncLog>;
  /** This database's id: names its checkpoint document on the server. */
  deviceId: () => string;
  /** Documents per request. */
  batch?: number;
  /** Pulled events changed these chats (or everything): the leader tells the tabs. */
  merged?: (result: MergeResult) => void;
  /** How far a pull has come, and of how many when that is known, for a progress bar. */
  progress?: (pulled: number, total: number | null) => void;
  /** How far a push has come, of how many events it has to offer, while it lasts. */
  pushProgress?: (offered: number, total: number) => void;
  /**
   * Resolves when pulled events may be merged: a merge may give events here new local seqs, so it
   * waits for a streaming reply, which holds its turn's seq, to finish.
   */
  ready?: () => Promise<void>;
  /** The passphrase this device seals with (null: none). */
  passphrase?: () => string | null;
  /** The relay's generations of the database, for writing the story anew ("Encrypt", "Change passphrase"). */
  generations?: SyncGenerations;
  /** How far sealing the story anew has come, of how many events. */
  resealProgress?: (written: number, total: number) => void;
  /** For the encryption's salt and nonces. */
  randomBytes?: (length: number) => Uint8Array;
}

export interface PushReport {
  /** Events the server did not have, now sent. */
  sent: number;
  /** Events the server holds under the same id with other content: never overwritten, left as they are. */
  refused: string[];
}

const BATCH = 500;

/**
 * Replication with one CouchDB database, as CouchDB's own replicator does it: push what the
 * server lacks (`_revs_diff`, then `_bulk_docs` with `new_edits: false`), pull its changes from an
 * opaque checkpoint, each page merged into the log together with the checkpoint. At least once:
 * a page pulled twice or a batch pushed twice changes nothing.
 */
/**
 * Sends a server the documents of these events it lacks (`_revs_diff`, then `_bulk_docs`): how
 * many were offered, and the ones it refused.
 */
async function sendMissing(target: CouchDatabase, events: readonly SyncedEvent[], sealer: Sealer | null): Promise<{ sent: number; errors: { id: string; error: string; reason?: string }[] }> {
  const docs = await Promise.all(events.map((e) => docFor(e, sealer)));
  const missing = await target.revsDiff(Object.fromEntries(docs.map((d) => [d._id, [d._rev]])));
  const toSend = docs.filter((d) => missing.has(d._id));
  return { sent: toSend.length, errors: toSend.length > 0 ? await target.bulkDocs(toSend) : [] };
}

export function createReplicator(deps: ReplicatorDeps) {
  const { couch, remote, log } = deps;
  const batch = deps.batch ?? BATCH;
  let sealer: Sealer | null = null;
  /** The checkpoint last left on the server, and its revision. */
  let saved: { pushedSeq: number; pulledSince: string | null; rev: string | null } | null = null;
  /**
   * Events this device sent that its pull has yet to pass on the server. While there are any, pages
   * come as ids only and just the documents this log lacks are fetched: a device never downloads
   * what it just uploaded.
   */
  let echoes = 0;
  /**
   * Names this server's database in the log's checkpoints: each generation (a story written anew,
   * see `relay/sync-generations.ts`) is a database of its own, with its own changes feed.
   */
  const key = () => (couch.generation() > 1 ? `${remote}#g${couch.generation()}` : remote);

  /**
   * Works out whether the database is encrypted, and with this device's passphrase: a database
   * without a record is encrypted from its first event by the first device that syncs with a
   * passphrase; one that already holds plain events stays plain (a passphrase then is refused).
   */
  async function prepare(): Promise<void> {
    await couch.prepare();
    // A generation this device has never pulled that holds mostly what this log holds (the story
    // written anew by another device): that comes back as ids, not as every document again. A
    // device with a few events of its own joining a long story pulls documents, one request a page.
    if (log.state(key()).pulledSince === null) {
      const held = log.eventCount();
      const onServer = held > 0 ? await couch.documentCount() : null;
      echoes = onServer !== null && held * 2 >= onServer ? held : 0;
    }
    const passphrase = deps.passphrase?.() ?? null;
    const record = (await couch.getLocal(ENCRYPTION_DOC)) as (EncryptionRecord & { _rev?: string }) | null;
    if (record) {
      if (!passphrase) throw new SyncError('This sync database is encrypted: enter its passphrase in Settings → Sync.', undefined, false, 'passphrase-needed');
      sealer = await openEncryption(passphrase, record, random());
      return;
    }
    sealer = null;
    if (!passphrase) return;
    const first = await couch.changes(null, 2);
    if (first.results.some((c) => !c.id.startsWith('_design/'))) {
      throw new SyncError('This sync database already holds unencrypted stories: "Encrypt" in Settings → Sync seals them all, or remove the passphrase.', undefined, false, 'passphrase-refused');
    }
    const created = await newEncryption(passphrase, random());
    await couch.putLocal(ENCRYPTION_DOC, { ...created.record });
    sealer = created.sealer;
  }
  const random = () => {
    if (!deps.randomBytes) throw new Error('The replicator needs randomBytes to encrypt.');
    return deps.randomBytes;
  };

  async function push(): Promise<PushReport> {
    const report: PushReport = { sent: 0, refused: [] };
    const total = deps.pushProgress ? log.unsynced(key()) : 0;
    let offered = 0;
    for (;;) {
      const events = log.toPush(key(), batch);
      if (events.length === 0) break;
      const { sent, errors } = await sendMissing(couch, events, sealer);
      for (const error of errors) {
        // The server's validation refuses a second version of an event: ours stays here, theirs there.
        if (error.error === 'forbidden') report.refused.push(error.id);
        else throw new SyncError(`The sync server did not take event ${error.id}: ${error.error} ${error.reason ?? ''}`.trim());
      }
      report.sent += sent - errors.length;
      echoes += sent - errors.length;
      log.pushed(key(), events.at(-1)!.seq);
      offered += events.length;
      // One page is no upload to show; a backlog (first sync, back from offline) is.
      if (total > batch) deps.pushProgress?.(Math.min(offered, total), total);
    }
    await saveCheckpoint();
    return report;
  }

  /** Pulls every change after the checkpoint; `wait` long-polls for the first page when nothing is new. */
  async function pull(wait?: { ms: number; signal?: AbortSignal }): Promise<number> {
    let pulled = 0;
    let seen = 0;
    // A first pull's size is the database's (less its design document); later ones, where the
    // server tells how many changes remain (CouchDB), that.
    let total = log.state(key()).pulledSince === null && !wait ? await couch.documentCount().then((n) => (n === null ? null : Math.max(0, n - 1))) : null;
    for (let first = true; ; first = false) {
      const since = log.state(key()).pulledSince;
      const idsOnly = echoes > 0;
      const page = await couch.changes(since, batch, first ? wait : undefined, idsOnly);
      // The validation's design document, and deletions (which validation refuses), are not events.
      const changed = page.results.filter((change) => !change.id.startsWith('_design/') && !change.deleted);
      let docs: Map<string, unknown>;
      if (idsOnly) {
        const known = log.known(changed.map((c) => c.id));
        echoes = Math.max(0, echoes - known.size);
        const lacking = changed.filter((c) => !known.has(c.id)).map((c) => c.id);
        docs = lacking.length > 0 ? await couch.documents(lacking) : new Map();
      } else {
        docs = new Map(changed.map((c) => [c.id, c.doc]));
      }
      const events: SyncedEvent[] = [];
      for (const change of changed) {
        // Known here already (an echo), or deleted on the server since the page was read.
        if (!docs.has(change.id)) continue;
        const event = await eventOf(docs.get(change.id), sealer);
        if (typeof event === 'string') throw new SyncError(`Document ${change.id.slice(0, 60)} on the sync server is not an event of this app: ${event}.`, undefined, false, 'server-data');
        events.push(event);
      }
      await deps.ready?.();
      // A long-poll answers at the first change of a batch being written: look again at once for the rest.
      const last = page.results.length < batch && !(first && wait && page.results.length > 0);
      const merged = log.pulled(key(), events, page.lastSeq, !last && page.pending !== 0);
      pulled += merged.added;
      seen += page.results.length;
      if (page.pending !== null) total = seen + page.pending;
      if (merged.added > 0) deps.merged?.(merged);
      const arrived = pulled + merged.heldBack;
      deps.progress?.(arrived, total === null ? null : Math.max(total, arrived));
      if (last) {
        // Read to the server's end: whatever was pushed before this pull has been passed.
        echoes = 0;
        return pulled;
      }
    }
  }

  /**
   * Deletes from the server what purges removed here (a purge made here, one that arrived, or an
   * event the server sent that a purge here had removed): each becomes a bare deletion, which the
   * validation allows, and a compaction drops its body. Other devices never receive it again; they
   * remove their own copies when the purge event reaches them. Answers how many were deleted.
   */
  async function removeFromServer(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = log.toRemove(batch);
      if (ids.length === 0) break;
      const revisions = await couch.revisions(ids);
      const docs = [...revisions].map(([_id, _rev]) => ({ _id, _rev }));
      if (docs.length > 0) {
        const errors = await couch.deleteDocs(docs);
        // Deleted meanwhile by another device (a conflict) is as good as deleted; anything else is kept for the next round.
        const failed = errors.filter((e) => e.error !== 'conflict');
        if (failed.length > 0) throw new SyncError(`The sync server kept event ${failed[0]!.id} that was deleted forever here: ${failed[0]!.error} ${failed[0]!.reason ?? ''}`.trim());
        deleted += docs.length - errors.length;
      }
      log.removed(ids);
    }
    if (deleted > 0) {
      // Best effort: a server that does not let this account compact does it on its own schedule.
      await couch.compact().catch(() => undefined);
    }
    return deleted;
  }

  /**
   * Writes the whole story anew on the server, sealed with `passphrase`: "Encrypt with a
   * passphrase" on a story that synced in the clear, or "Change passphrase". The next generation of
   * the database is written beside the current one from this log (pulled to the end first), then
   * the relay commits it in one step and deletes the old one: never a server half one way and half
   * the other. Killed midway, the next call resumes the next generation where it stopped. Answers
   * false when the server's story already opens with this passphrase (a commit that landed before
   * this device could record it), true once it has written and committed.
   */
  async function reseal(passphrase: string): Promise<boolean> {
    const generations = deps.generations;
    if (!generations) throw new SyncError('Only a sync server behind the relay can have its story written anew.');
    await couch.prepare();
    const current = (await couch.getLocal(ENCRYPTION_DOC)) as EncryptionRecord | null;
    if (current && (await openEncryption(passphrase, current, random()).catch(() => null))) return false;
    await prepare();
    await pull();
    let { lease } = await generations.begin(false, deps.deviceId());
    let next = generations.next(lease);
    await next.prepare();
    const left = (await next.getLocal(ENCRYPTION_DOC)) as EncryptionRecord | null;
    let sealing = left ? await openEncryption(passphrase, left, random()).catch(() => null) : null;
    if (left && !sealing) {
      // Left by an attempt with another passphrase: started over, empty.
      ({ lease } = await generations.begin(true, deps.deviceId()));
      next = generations.next(lease);
      await next.prepare();
    }
    if (!sealing) {
      const created = await newEncryption(passphrase, random());
      await next.putLocal(ENCRYPTION_DOC, { ...created.record });
      sealing = created.sealer;
    }
    const total = log.eventCount();
    let written = 0;
    for (let after = 0; ; ) {
      const events = log.eventsAfter(after, batch);
      if (events.length === 0) break;
      // Resumed: what the attempt before wrote is there already.
      const { errors } = await sendMissing(next, events, sealing);
      if (errors.length > 0) throw new SyncError(`The sync server did not take event ${errors[0]!.id} into the story written anew: ${errors[0]!.error}`);
      after = events.at(-1)!.seq;
      written += events.length;
      deps.resealProgress?.(written, total);
    }
    await generations.commit(lease);
    // Nothing old to drop in a new database; asked anyway, as the players expect a compacted server.
    await next.compact().catch(() => undefined);
    return true;
  }

  /** Leaves where this device stands on the server too, as replicators do (`_local` documents are never replicated). */
  async function saveCheckpoint(): Promise<void> {
    const id = `roleplay-engine-${deps.deviceId()}`;
    const state = log.state(key());
    // Most rounds change nothing: no request then. The document is read once, for its revision.
    if (saved && saved.pushedSeq === state.pushedSeq && saved.pulledSince === state.pulledSince) return;
    const write = async (rev: unknown) => couch.putLocal(id, { ...(typeof rev === 'string' ? { _rev: rev } : {}), pushed_seq: state.pushedSeq, pulled_since: state.pulledSince });
    let rev: string | null;
    try {
      rev = await write(saved?.rev ?? (await couch.getLocal(id))?._rev);
    } catch (error) {
      // Written meanwhile by this device's previous leader: read its revision and write again.
      if (!(error instanceof SyncError && error.status === 409)) throw error;
      rev = await write((await couch.getLocal(id))?._rev);
    }
    saved = { ...state, rev };
  }

  return {
    prepare,
    reseal,
    /** The log's name for the server's current database (its generation). */
    key,
    push,
    pull,
    removeFromServer,
    /** One full exchange: pull, then push, then what purges removed off the server. */
    async syncOnce(): Promise<{ pulled: number; removed: number } & PushReport> {
      const pulled = await pull();
      const pushed = await push();
      return { pulled, ...pushed, removed: await removeFromServer() };
    },
  };
}

export type Replicator = ReturnType<typeof createReplicator>;
