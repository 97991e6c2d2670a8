import type { IncomingMessage, ServerResponse } from 'node:http';
import { VALIDATION_DESIGN } from '../src/engine/sync/validation-design.ts';
import { RelayHttpError } from './http-error.ts';
import { readBody } from './request-body.ts';
import type { SyncGenerations } from './sync-generations.ts';
import type { SyncTarget } from './sync-target.ts';

const CHANGES_PARAMS = new Set(['since', 'limit', 'include_docs', 'style', 'feed', 'timeout', 'heartbeat']);
const MAX_BODY = 32 * 1024 * 1024;

/** What the app may do with the sync database, and nothing else: never the server, other databases or other design documents. */
function allowed(method: string, rest: string): boolean {
  if (rest === '') return method === 'GET' || method === 'PUT';
  if (rest === '_revs_diff' || rest === '_bulk_docs' || rest === '_all_docs' || rest === '_compact') return method === 'POST';
  if (rest === '_changes') return method === 'GET';
  if (rest === VALIDATION_DESIGN._id) return method === 'GET' || method === 'PUT';
  if (/^_local\/[A-Za-z0-9_.-]{1,200}$/.test(rest)) return method === 'GET' || method === 'PUT';
  return false;
}

/** An event's id: a UUID (v7). Nothing else (a design document, a `_local` one) is written through `_bulk_docs`. */
const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What an event document carries (`src/engine/sync/event-docs.ts`): plain, or sealed with a passphrase. */
const EVENT_FIELDS = new Set(['_id', '_rev', '_revisions', 'chat', 'kind', 'payload', 'ts', 'cause', 'command', 'device', 'sealed']);
/** A deletion (a purge taking an event off the server) carries nothing else. */
const DELETION_FIELDS = new Set(['_id', '_rev', '_revisions', '_deleted']);

/**
 * A `_bulk_docs` body holding only events, or deletions of events, and nothing else: no design
 * document (which could replace or add a validation), no `_local` one, no attachment or other field.
 */
function onlyEvents(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const refuse = (why: string) => new RelayHttpError(403, 'relay_unauthorized', `Sync writes only events: ${why}.`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('send {"docs": [...]}');
  const { docs, new_edits: newEdits, ...other } = parsed as { docs?: unknown; new_edits?: unknown };
  if (Object.keys(other).length > 0 || (newEdits !== undefined && typeof newEdits !== 'boolean') || !Array.isArray(docs)) throw refuse('send {"docs": [...]}');
  for (const doc of docs as unknown[]) {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw refuse('a document is not an object');
    const id = (doc as { _id?: unknown })._id;
    if (typeof id !== 'string' || !EVENT_ID.test(id)) throw refuse(`"${String(id).slice(0, 80)}" is not an event's id`);
    const fields = (doc as { _deleted?: unknown })._deleted === true ? DELETION_FIELDS : EVENT_FIELDS;
    const stray = Object.keys(doc).find((key) => !fields.has(key));
    if (stray !== undefined) throw refuse(`${id} carries "${stray.slice(0, 80)}"`);
  }
  return JSON.stringify({ docs, ...(newEdits !== undefined ? { new_edits: newEdits } : {}) });
}

/** An `_all_docs` body reduced to its `keys` (up to 1,000 ids): anything else is refused. */
function onlyKeys(body: string): string {
  let keys: unknown;
  try {
    keys = (JSON.parse(body) as { keys?: unknown }).keys;
  } catch {
    keys = undefined;
  }
  if (!Array.isArray(keys) || keys.length > 1_000 || !keys.every((k) => typeof k === 'string' && k.length <= 200)) {
    throw new RelayHttpError(400, 'invalid_request', 'Sync asks the server only for the revisions of up to 1,000 documents by id ({"keys": [...]}).');
  }
  return JSON.stringify({ keys });
}

/**
 * `/sync/...`: the app's replication calls, forwarded to the one CouchDB database configured here
 * with the relay's credentials (which never reach the browser). Only the calls replication needs
 * pass; the validation design document may only be written exactly as the app installs it, and
 * `_bulk_docs` carries events and their deletions only.
 */
export function createSyncProxy(
  target: SyncTarget | null,
  generations: SyncGenerations | null,
  options: { bodyTimeoutMs: number; fetch?: typeof fetch; scrub: (text: string) => string },
) {
  const send = options.fetch ?? fetch;
  // A long-poll on the database a commit retires would wait out its timeout on a deleted database:
  // it ends at the commit, telling its device the story moved.
  const inFlight = new Set<{ database: string; moved: () => void }>();
  generations?.onCommit((old) => {
    for (const call of inFlight) if (call.database === old) call.moved();
  });
  const generationChanged = () => new RelayHttpError(409, 'sync_generation_changed', 'The story on the sync server was written anew (sealed with a new passphrase) by another device: sync starts again from it.');
  return async function proxy(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void> {
    if (!target || !generations) throw new RelayHttpError(404, 'not_found', 'This relay has no sync server: set SYNC_COUCHDB_URL (and SYNC_DATABASE) where the relay runs.');
    // A device that prepared against one generation is told when the story moved to the next
    // (re-sealed by another device), rather than write to a database about to be deleted.
    const expected = req.headers['x-sync-generation'];
    const rewrite = req.headers['x-sync-rewrite'];
    if (typeof expected === 'string' && rewrite === undefined && expected !== String(generations.generation())) throw generationChanged();
    const database = generations.databaseFor(typeof rewrite === 'string' ? rewrite : undefined);
    const rest = path === '/sync' ? '' : path.slice('/sync/'.length);
    const method = req.method ?? 'GET';
    if (rest.split('/').some((part) => part === '..' || part === '.') || !allowed(method, rest)) {
      throw new RelayHttpError(403, 'relay_unauthorized', `Sync does not forward ${method} ${path}.`);
    }
    const body = method === 'GET' ? undefined : await readBody(req, MAX_BODY, options.bodyTimeoutMs);
    if (rest === VALIDATION_DESIGN._id && method === 'PUT') {
      let design: { validate_doc_update?: unknown } = {};
      try {
        design = JSON.parse(body || '{}') as typeof design;
      } catch {
        // not JSON: refused below like any other design
      }
      if (design.validate_doc_update !== VALIDATION_DESIGN.validate_doc_update) {
        throw new RelayHttpError(403, 'relay_unauthorized', 'Only the app\'s own validation may be installed on the sync database.');
      }
    }
    // `_all_docs` tells the revisions of documents named by id (to delete what a purge removed), or
    // those documents (a pull fetching only what its device lacks): only `keys` is passed on, and
    // `include_docs`, never a range or a view that would read more than the ids asked for.
    const forwarded = rest === '_all_docs' ? onlyKeys(body ?? '') : rest === '_bulk_docs' ? onlyEvents(body ?? '') : body;
    let query = '';
    if (rest === '_changes') {
      const params = new URLSearchParams(search);
      for (const key of [...params.keys()]) if (!CHANGES_PARAMS.has(key)) params.delete(key);
      query = params.size > 0 ? `?${params}` : '';
    } else if (rest === '_all_docs' && new URLSearchParams(search).get('include_docs') === 'true') {
      query = '?include_docs=true';
    }
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    let moved = false;
    const call = {
      database,
      moved: () => {
        moved = true;
        controller.abort();
      },
    };
    inFlight.add(call);
    let upstream: Response;
    let text: string;
    try {
      upstream = await send(`${database}${rest ? `/${rest}` : ''}${query}`, {
        method,
        headers: { accept: 'application/json', ...(forwarded ? { 'content-type': 'application/json' } : {}), ...(target.authorization ? { authorization: target.authorization } : {}) },
        ...(forwarded ? { body: forwarded } : {}),
        signal: controller.signal,
      });
      // The relay's own login refused is the operator's to fix, not the player's: said as such, and
      // never as the browser's 401 (which would read as the relay token being wrong).
      if (upstream.status === 401) {
        await upstream.body?.cancel();
        throw new RelayHttpError(502, 'sync_login_refused', "The sync server refused the relay's login: check the user and password in SYNC_COUCHDB_URL.");
      }
      // CouchDB's answers are small JSON (a changes page is bounded by its limit); passed on scrubbed.
      text = options.scrub(await upstream.text());
    } catch (error) {
      if (moved) throw generationChanged();
      if (error instanceof RelayHttpError) throw error;
      if (controller.signal.aborted) return;
      throw new RelayHttpError(502, 'upstream_unreachable', `The sync server could not be reached: ${options.scrub(error instanceof Error ? error.message : String(error))}`);
    } finally {
      inFlight.delete(call);
    }
    res.writeHead(upstream.status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Sync-Generation': String(generations.generation()) });
    res.end(text);
  };
}
