/**
 * What stopped sync, as the player can act on it: each has its own sentence and its own remedy
 * in Settings → Sync. The error's message stays the technical detail, for the curious.
 */
export type SyncProblem =
  /** The relay wants its token (RELAY_TOKEN) and this browser has none, or a wrong one. */
  | 'relay-token'
  /** Another device removed this one from the relay ("Remove this device"): its token no longer opens it. */
  | 'device-removed'
  /** This browser cannot reach the relay: no network, or the relay is down. */
  | 'offline'
  /** The relay cannot reach its sync server (CouchDB is down or moved). */
  | 'server-down'
  /** The sync server refused the relay's login: SYNC_COUCHDB_URL's user or password is wrong. */
  | 'server-login'
  /** The story on the server is encrypted and this device has no passphrase. */
  | 'passphrase-needed'
  /** This device's passphrase is not the story's. */
  | 'passphrase-wrong'
  /** The server already holds this story unencrypted: a passphrase cannot be set on it now. */
  | 'passphrase-refused'
  /** The server holds something this app cannot read (damaged, or another app's). */
  | 'server-data'
  /** Another device wrote the story anew on the server (a new passphrase): sync starts again from it. */
  | 'generation-changed'
  /** Another device is writing the story anew on the server right now. */
  | 'rewrite-busy'
  /** Anything else the server refused. */
  | 'refused';

export class SyncError extends Error {
  override name = 'SyncError';
  readonly problem: SyncProblem;
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    /** The server could not be reached at all: worth trying again later. */
    readonly offline = false,
    problem?: SyncProblem,
  ) {
    super(message);
    this.problem = problem ?? (offline ? 'offline' : 'refused');
  }
}

/** The problem an answer from the relay's /sync/ path names: its error code, else its status. */
export function problemOfAnswer(status: number, code: string | null): SyncProblem {
  if (code === 'relay_unauthorized' && status === 401) return 'relay-token';
  if (code === 'device_removed') return 'device-removed';
  if (code === 'sync_generation_changed') return 'generation-changed';
  if (code === 'rewrite_busy') return 'rewrite-busy';
  if (code === 'sync_login_refused') return 'server-login';
  if (code === 'upstream_unreachable' || status === 502 || status === 503 || status === 504) return 'server-down';
  // Straight to a CouchDB (tests, or a server without the relay): its own login refused.
  if (status === 401) return 'server-login';
  return 'refused';
}
