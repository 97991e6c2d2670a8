import type { EventDoc } from './event-docs.ts';
import { problemOfAnswer, SyncError } from './sync-error.ts';
import { VALIDATION_DESIGN } from './validation-design.ts';

/** The `fetch` the client speaks through: the platform's, pointed at the relay's `/sync/` path. */
export type Fetch = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  ok: boolean;
  status: number;
  headers?: { get(name: string): string | null };
  json(): Promise<unknown>;
  text(): Promise<string>;
}>;

export interface Change {
  id: string;
  doc?: unknown;
  deleted?: boolean;
}

export interface ChangesPage {
  results: Change[];
  /** Opaque: a number on PouchDB, a string on CouchDB 2+; only ever handed back. */
  lastSeq: string;
  /** How many changes are left after this page, where the server says (CouchDB 2+). */
  pending: number | null;
}

/**
 * The few calls of CouchDB's documented HTTP API that replication needs, against one database URL.
 * No PouchDB: the device's database is SQLite, and this is all the protocol it takes.
 */
/**
 * What a refusal says, in words: the relay's `{ error: { code, message } }`, or CouchDB's
 * `{ error, reason }`. Never the raw body: it is shown to the player as a detail.
 */
function refusal(body: string): { code: string | null; reason: string } {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; reason?: unknown };
    if (parsed.error && typeof parsed.error === 'object') {
      const { code, message } = parsed.error as { code?: unknown; message?: unknown };
      return { code: typeof code === 'string' ? code : null, reason: typeof message === 'string' ? message.slice(0, 200) : '' };
    }
    return { code: typeof parsed.error === 'string' ? parsed.error : null, reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 200) : '' };
  } catch {
    return { code: null, reason: '' };
  }
}

/**
 * `rewrite`: the lease under which this device writes the next generation of the relay's database
 * (`relay/sync-generations.ts`), whose calls carry it. Otherwise, once the relay has named the
 * generation it serves, every call carries that name back, and the relay refuses it (409
 * `sync_generation_changed`) once another device has moved the story to the next one.
 */
export function couchDatabase(url: string, fetch: Fetch, options: { rewrite?: string } = {}) {
  const base = url.replace(/\/+$/, '');
  let generation: string | null = null;
  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.rewrite ? { 'x-sync-rewrite': options.rewrite } : generation ? { 'x-sync-generation': generation } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new SyncError(`The sync server could not be reached (${error instanceof Error ? error.message : String(error)}).`, undefined, true);
    }
    if (!options.rewrite) generation ??= response.headers?.get('x-sync-generation') ?? null;
    if (!response.ok) {
      const { code, reason } = refusal(await response.text().catch(() => ''));
      throw new SyncError(`${method} ${path.split('?')[0] || '/'} answered ${response.status}${reason ? `: ${reason}` : ''}`, response.status, false, problemOfAnswer(response.status, code));
    }
    return (await response.json()) as T;
  }

  return {
    /** Which generation of the relay's database this client works with (1 until the relay names another, or without a relay). */
    generation: (): number => Number(generation ?? 1),
    /** Creates the database if it is not there, and installs the validation that keeps events unchanged. */
    async prepare(): Promise<void> {
      // Learnt afresh: the story may have moved to another generation since.
      generation = null;
      try {
        await call('PUT', '');
      } catch (error) {
        if (!(error instanceof SyncError && error.status === 412)) throw error; // it exists
      }
      const design = await call<{ _rev?: string; validate_doc_update?: string }>('GET', `/${VALIDATION_DESIGN._id}`).catch((error) => {
        if (error instanceof SyncError && error.status === 404) return null;
        throw error;
      });
      if (design?.validate_doc_update === VALIDATION_DESIGN.validate_doc_update) return;
      await call('PUT', `/${VALIDATION_DESIGN._id}`, { ...VALIDATION_DESIGN, ...(design?._rev ? { _rev: design._rev } : {}) });
    },
    /** Which of these revisions the server lacks. */
    async revsDiff(revs: Record<string, string[]>): Promise<Set<string>> {
      const answer = await call<Record<string, { missing?: string[] }>>('POST', '/_revs_diff', revs);
      return new Set(Object.entries(answer).filter(([, v]) => (v.missing ?? []).length > 0).map(([id]) => id));
    },
    /** Writes documents as they are, revisions included (`new_edits: false`): what replication does. */
    async bulkDocs(docs: EventDoc[]): Promise<{ id: string; error: string; reason?: string }[]> {
      const answer = await call<{ id: string; error?: string; reason?: string }[]>('POST', '/_bulk_docs', { docs, new_edits: false });
      return answer.filter((r): r is { id: string; error: string; reason?: string } => typeof r.error === 'string');
    },
    /**
     * A page of changes after `since` (null: from the start), with their documents unless `idsOnly`;
     * `wait` long-polls up to that many ms.
     */
    async changes(since: string | null, limit: number, wait?: { ms: number; signal?: AbortSignal }, idsOnly = false): Promise<ChangesPage> {
      const params: [string, string][] = [['include_docs', String(!idsOnly)], ['limit', String(limit)], ['style', 'main_only']];
      if (since !== null) params.push(['since', since]);
      if (wait) params.push(['feed', 'longpoll'], ['timeout', String(wait.ms)]);
      const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const answer = await call<{ results: Change[]; last_seq: unknown; pending?: unknown }>('GET', `/_changes?${query}`, undefined, wait?.signal);
      if (!Array.isArray(answer.results)) throw new SyncError('The sync server sent changes in a shape this app does not know.');
      return {
        results: answer.results,
        lastSeq: typeof answer.last_seq === 'string' ? answer.last_seq : JSON.stringify(answer.last_seq),
        pending: typeof answer.pending === 'number' ? answer.pending : null,
      };
    },
    /** The revision the server holds of each of these documents, leaving out those it does not hold or has deleted. */
    async revisions(ids: readonly string[]): Promise<Map<string, string>> {
      const answer = await call<{ rows?: { key?: unknown; value?: { rev?: unknown; deleted?: unknown } }[] }>('POST', '/_all_docs', { keys: ids });
      const revisions = new Map<string, string>();
      for (const row of answer.rows ?? []) {
        if (typeof row.key === 'string' && typeof row.value?.rev === 'string' && row.value.deleted !== true) revisions.set(row.key, row.value.rev);
      }
      return revisions;
    },
    /** The current documents of these ids, leaving out those the server does not hold or has deleted. */
    async documents(ids: readonly string[]): Promise<Map<string, unknown>> {
      const answer = await call<{ rows?: { key?: unknown; doc?: unknown; value?: { deleted?: unknown } }[] }>('POST', '/_all_docs?include_docs=true', { keys: ids });
      const docs = new Map<string, unknown>();
      for (const row of answer.rows ?? []) {
        if (typeof row.key === 'string' && row.doc && row.value?.deleted !== true) docs.set(row.key, row.doc);
      }
      return docs;
    },
    /** Deletes documents: each becomes a bare deletion, nothing but its id and revision. Answers those the server refused. */
    async deleteDocs(docs: readonly { _id: string; _rev: string }[]): Promise<{ id: string; error: string; reason?: string }[]> {
      const answer = await call<{ id: string; error?: string; reason?: string }[]>('POST', '/_bulk_docs', { docs: docs.map((d) => ({ _id: d._id, _rev: d._rev, _deleted: true })) });
      return answer.filter((r): r is { id: string; error: string; reason?: string } => typeof r.error === 'string');
    },
    /** Asks the server to drop the bodies of revisions no longer current now (CouchDB 3 also does it by itself, later). */
    async compact(): Promise<void> {
      await call('POST', '/_compact', {});
    },
    /** How many documents the database holds (design documents included). */
    async documentCount(): Promise<number | null> {
      const info = await call<{ doc_count?: unknown }>('GET', '');
      return typeof info.doc_count === 'number' ? info.doc_count : null;
    },
    async getLocal(id: string): Promise<Record<string, unknown> | null> {
      return call<Record<string, unknown>>('GET', `/_local/${encodeURIComponent(id)}`).catch((error) => {
        if (error instanceof SyncError && error.status === 404) return null;
        throw error;
      });
    },
    /** Writes a `_local` document; returns its new revision. */
    async putLocal(id: string, doc: Record<string, unknown>): Promise<string | null> {
      const answer = await call<{ rev?: unknown }>('PUT', `/_local/${encodeURIComponent(id)}`, doc);
      return typeof answer.rev === 'string' ? answer.rev : null;
    },
  };
}

export type CouchDatabase = ReturnType<typeof couchDatabase>;

/**
 * The relay's generations of the sync database (`relay/sync-generations.ts`): a device writes the
 * next one under a lease, then commits it as the story's database.
 */
export interface SyncGenerations {
  /** Starts, or resumes, the next generation; `fresh` empties what an earlier attempt left there. */
  begin(fresh: boolean, device: string): Promise<{ lease: string; generation: number }>;
  /** The next generation's database, written under the lease. */
  next(lease: string): CouchDatabase;
  /** The next generation becomes the story's database; the relay deletes the old one. */
  commit(lease: string): Promise<{ generation: number }>;
}

/** Generations through the relay: `api` its `/api/sync` base, `sync` its `/sync` path. */
export function relayGenerations(api: string, sync: string, fetch: Fetch): SyncGenerations {
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await fetch(`${api.replace(/\/+$/, '')}${path}`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch (error) {
      throw new SyncError(`The relay could not be reached (${error instanceof Error ? error.message : String(error)}).`, undefined, true);
    }
    if (!response.ok) {
      const { code, reason } = refusal(await response.text().catch(() => ''));
      throw new SyncError(`POST ${path} answered ${response.status}${reason ? `: ${reason}` : ''}`, response.status, false, problemOfAnswer(response.status, code));
    }
    return (await response.json()) as T;
  };
  return {
    begin: (fresh, device) => post('/rewrites', { fresh, device }),
    next: (lease) => couchDatabase(sync, fetch, { rewrite: lease }),
    commit: (lease) => post('/rewrites/commit', { lease }),
  };
}
