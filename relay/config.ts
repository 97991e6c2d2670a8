import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import { loadSyncTarget, type SyncTarget } from './sync-target.ts';

export interface RelayConfig {
  /** Never logged, never sent to the browser. Empty means demo mode (unless `keyless`). Set from the app at run time too. */
  apiKey: string;
  upstream: string;
  /**
   * The origin of the server the key was given for: the key goes in no request to any other
   * (`Upstream.headers`), whatever `upstream` says meanwhile.
   */
  keyOrigin: string;
  /** The app set a server that needs no key (a local one): it is used even without one. */
  keyless: boolean;
  /** Where the connection set in the app is kept (mode 0600); null keeps it in memory only. */
  connectionFile: string | null;
  /** Where the devices this relay lets in are kept (mode 0600, their tokens hashed); null keeps them in memory only. */
  devicesFile: string | null;
  /** Which generation of the sync database holds the story (see relay/sync-generations.ts); null keeps it in memory only. */
  syncStateFile: string | null;
  host: string;
  port: number;
  token: string;
  maxStreamsPerClient: number;
  /** Used when the upstream has no /plan (a local server): account-wide concurrency units. */
  upstreamConcurrency: number;
  /** Empty: every model is allowed. */
  allowedModels: string[];
  maxBodyBytes: number;
  /** How long a client may take to send its request body. */
  bodyTimeoutMs: number;
  /** The largest SSE event or whole JSON reply taken from the upstream. */
  maxEventBytes: number;
  /** How long a request may wait in the account-wide queue before it gets a 429. */
  queueTimeoutMs: number;
  /** How long the upstream may take to start answering, and may go quiet while it answers. */
  upstreamTimeoutMs: number;
  modelsCacheMs: number;
  distDir: string;
  /** Featherless asks integrations to identify themselves. */
  referer: string;
  title: string;
  /** The CouchDB database that devices sync through (`/sync/`), or null. */
  sync: SyncTarget | null;
}


const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;
export const isLoopback = (host: string) => LOOPBACK.test(host);

/** KEY=VALUE lines, `#` comments, optional quotes. The file is gitignored; the environment wins. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const match = /^\s*([A-Z_][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    values[match[1]!] = match[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

function positiveInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a whole number of at least 1 (got "${raw}")`);
  return value;
}

export function loadConfig(env: Record<string, string | undefined>, distDir: string): RelayConfig {
  const upstream = (env.RELAY_UPSTREAM || 'https://api.featherless.ai/v1').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(upstream);
  } catch {
    throw new ConfigError(`RELAY_UPSTREAM must be a URL such as https://api.featherless.ai/v1 (got "${upstream}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`RELAY_UPSTREAM must be http or https (got "${parsed.protocol}")`);
  }
  if (parsed.username || parsed.password || upstream.includes('?') || upstream.includes('#')) {
    throw new ConfigError('RELAY_UPSTREAM is a server base such as https://api.featherless.ai/v1: no user info, query or fragment');
  }
  const host = env.RELAY_HOST || '127.0.0.1';
  const token = env.RELAY_TOKEN ?? '';
  if (!isLoopback(host) && token.length < 16) {
    throw new ConfigError(
      `Refusing to listen on ${host} without RELAY_TOKEN: anyone on the network could spend your API quota. ` +
        'Set RELAY_TOKEN to a secret of 16 or more characters, or bind to 127.0.0.1.',
    );
  }
  const port = env.RELAY_PORT === '0' ? 0 : positiveInt(env, 'RELAY_PORT', 8787);
  return {
    apiKey: (env.FEATHERLESS_API_KEY ?? '').trim(),
    keyOrigin: new URL(upstream).origin,
    upstream,
    keyless: false,
    connectionFile: env.RELAY_CONNECTION_FILE || null,
    devicesFile: env.RELAY_DEVICES_FILE || null,
    syncStateFile: env.RELAY_SYNC_STATE_FILE || null,
    host,
    port,
    token,
    maxStreamsPerClient: positiveInt(env, 'RELAY_MAX_STREAMS', 4),
    upstreamConcurrency: positiveInt(env, 'RELAY_UPSTREAM_CONCURRENCY', 4),
    allowedModels: (env.RELAY_MODELS ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    maxBodyBytes: positiveInt(env, 'RELAY_MAX_BODY_BYTES', 1024 * 1024),
    bodyTimeoutMs: positiveInt(env, 'RELAY_BODY_TIMEOUT_MS', 30_000),
    maxEventBytes: positiveInt(env, 'RELAY_MAX_EVENT_BYTES', 4 * 1024 * 1024),
    queueTimeoutMs: positiveInt(env, 'RELAY_QUEUE_TIMEOUT_MS', 60_000),
    upstreamTimeoutMs: positiveInt(env, 'RELAY_UPSTREAM_TIMEOUT_MS', 120_000),
    modelsCacheMs: positiveInt(env, 'RELAY_MODELS_CACHE_MS', 5 * 60_000),
    distDir,
    referer: env.RELAY_REFERER || 'https://github.com/roleplay-engine/roleplay-engine',
    title: env.RELAY_TITLE || 'Roleplay Engine',
    sync: loadSyncTarget(env),
  };
}
