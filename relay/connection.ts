import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { RelayConfig } from './config.ts';
import { RelayHttpError } from './http-error.ts';

export const FEATHERLESS = 'https://api.featherless.ai/v1';

/** What the app may set: a Featherless key, another OpenAI-compatible server (its key optional), or the demo model. */
const connectionInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('demo') }),
  z.object({ kind: z.literal('featherless'), apiKey: z.string().optional() }),
  z.object({ kind: z.literal('custom'), baseUrl: z.string(), apiKey: z.string().optional() }),
]);

/** What is kept in the relay's connection file (mode 0600): only what the app set. */
interface Stored {
  apiKey?: string;
  upstream?: string;
  /** The player chose the built-in demo model, whatever the environment holds. */
  demo?: true;
}

/** What the browser may know of the connection: never the key, only its last four characters. */
export interface ConnectionStatus {
  mode: 'demo' | 'upstream';
  kind: 'featherless' | 'custom' | 'demo';
  baseUrl: string;
  keySet: boolean;
  keyHint: string | null;
  /** Where the key (or the server) comes from: set in the app, or in the relay's environment. */
  source: 'app' | 'environment' | null;
}

function checkKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (key === '') return undefined;
  if (key.length < 8 || key.length > 400 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new RelayHttpError(400, 'invalid_request', 'That does not look like an API key: paste it whole, without spaces (8 to 400 characters).');
  }
  return key;
}

/**
 * A server's address is a scheme, a host, a port and a path: the relay calls only its fixed API
 * paths beneath it, so a query, a fragment or user info (which could aim a request elsewhere, or
 * at another resource of the same host) is refused.
 */
export function checkUrl(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new RelayHttpError(400, 'invalid_request', `"${trimmed.slice(0, 200)}" is not a URL: give the server's address, such as http://127.0.0.1:8080/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RelayHttpError(400, 'invalid_request', 'The server address must start with http:// or https://.');
  if (url.username || url.password) throw new RelayHttpError(400, 'invalid_request', 'Put the key in the key field, not in the address.');
  if (trimmed.includes('?') || trimmed.includes('#')) {
    throw new RelayHttpError(400, 'invalid_request', 'The server address takes no query (?…) or fragment (#…): give its base, such as http://127.0.0.1:8080/v1.');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

const isServerAddress = (value: string): boolean => {
  try {
    return checkUrl(value) === value;
  } catch {
    return false;
  }
};

function readStored(file: string | null): Stored {
  if (!file || !existsSync(file)) return {};
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Stored;
    return {
      ...(typeof value.apiKey === 'string' && value.apiKey ? { apiKey: value.apiKey } : {}),
      ...(typeof value.upstream === 'string' && value.upstream && isServerAddress(value.upstream) ? { upstream: value.upstream } : {}),
      ...(value.demo === true ? { demo: true as const } : {}),
    };
  } catch {
    return {};
  }
}

/** Written whole to a temporary file first, readable by the relay's user alone, then moved into place. */
function writeStored(file: string | null, value: Stored): void {
  if (!file) return;
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/**
 * The relay's connection to its model server, changeable from the app without a restart. The
 * environment gives the starting point; what the app sets is kept in the connection file and wins.
 * The relay's config object is updated in place, so every request reads the current key.
 */
export function createConnection(config: RelayConfig, secrets: string[], changed: () => void) {
  const environment = { apiKey: config.apiKey, upstream: config.upstream };
  let stored = readStored(config.connectionFile);
  const apply = () => {
    config.upstream = stored.upstream ?? environment.upstream;
    // A key belongs to the server it was given for: the environment's key to the environment's
    // server, never to one set from the app without a key of its own.
    config.apiKey = stored.demo ? '' : (stored.apiKey ?? (config.upstream === environment.upstream ? environment.apiKey : ''));
    config.keyOrigin = new URL(config.upstream).origin;
    // A server set in the app answers without a key (a local llama.cpp or Ollama needs none).
    config.keyless = !stored.demo && stored.upstream !== undefined && stored.upstream !== FEATHERLESS;
    // Every key this relay has used stays redacted from anything it sends or logs, even after a change.
    if (config.apiKey && !secrets.includes(config.apiKey)) secrets.push(config.apiKey);
  };
  apply();

  const status = (): ConnectionStatus => ({
    mode: config.apiKey || config.keyless ? 'upstream' : 'demo',
    kind: stored.demo ? 'demo' : config.upstream === FEATHERLESS ? 'featherless' : 'custom',
    baseUrl: config.upstream,
    keySet: Boolean(config.apiKey),
    keyHint: config.apiKey ? `…${config.apiKey.slice(-4)}` : null,
    source: stored.apiKey || stored.upstream || stored.demo ? 'app' : environment.apiKey ? 'environment' : null,
  });

  return {
    status,
    set(body: unknown): ConnectionStatus {
      const parsed = connectionInput.safeParse(body);
      if (!parsed.success) throw new RelayHttpError(400, 'invalid_request', 'Send { kind: "featherless", apiKey }, { kind: "custom", baseUrl, apiKey? } or { kind: "demo" }.');
      const input = parsed.data;
      const apiKey = input.kind === 'demo' ? undefined : checkKey(input.apiKey);
      if (input.kind === 'demo') {
        // Back to the demo model: a key set from the app is forgotten with the server it was for.
        stored = { demo: true };
      } else if (input.kind === 'featherless') {
        const kept = config.upstream === FEATHERLESS ? config.apiKey : '';
        if (!apiKey && !kept) throw new RelayHttpError(400, 'invalid_request', 'Paste your Featherless API key.');
        stored = { apiKey: apiKey ?? kept, upstream: FEATHERLESS };
      } else {
        const upstream = checkUrl(input.baseUrl);
        // A new key replaces the old; none given keeps the key only for the same server (and the
        // environment's key stays with the environment's server: see apply).
        const kept = upstream === config.upstream && stored.apiKey ? stored.apiKey : undefined;
        stored = { upstream, ...(apiKey || kept ? { apiKey: apiKey ?? kept } : {}) };
      }
      writeStored(config.connectionFile, stored);
      apply();
      changed();
      return status();
    },
    /** Forgets what the app set: the relay goes back to its environment (the demo model when it has no key). */
    remove(): ConnectionStatus {
      stored = {};
      writeStored(config.connectionFile, stored);
      apply();
      changed();
      return status();
    },
  };
}

export type Connection = ReturnType<typeof createConnection>;
