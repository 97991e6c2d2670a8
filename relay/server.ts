import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { isLoopback, type RelayConfig } from './config.ts';
import { handleCompletions } from './completions.ts';
import { DEMO_MODELS } from './demo-model.ts';
import { RelayHttpError, sendError, sendJson } from './http-error.ts';
import { scrubbedLogger, type Logger } from './logger.ts';
import { scrubber } from './redact.ts';
import { createStaticHandler } from './static-files.ts';
import { createConnection } from './connection.ts';
import { readJsonBody } from './request-body.ts';
import { claimDevice, devicesApi, type Caller } from './devices-api.ts';
import { createDeviceRegistry, DEVICE_TOKEN_PREFIX } from './devices.ts';
import { createSyncGenerations } from './sync-generations.ts';
import { Upstream } from './upstream.ts';
import { createSyncProxy } from './sync-proxy.ts';
import { createImageProxy, type ImageProxyOptions } from './image-proxy.ts';
import { UpstreamQueue } from './upstream-queue.ts';

/**
 * The Content-Security-Policy of every response. Only the app's own files run (`'wasm-unsafe-eval'`
 * is for compiling SQLite), no inline script or `eval`, images from the app, `data:` and `blob:`
 * only (a card's creator notes cannot ping a tracker), nothing framed, framing or posted elsewhere.
 * Trusted Types leave four ways to hand the DOM markup or a script URL: Solid's compiled templates,
 * DOMPurify's output, the early database worker's fixed URL, and the `default` policy, which takes
 * script URLs of this origin only and no HTML (src/browser/trusted-types.ts).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types default solid-templates dompurify early-database-worker',
].join('; ');

/** Browser features the app never uses, turned off for it and anything it could embed. */
export const PERMISSIONS_POLICY = [
  'accelerometer', 'autoplay', 'camera', 'display-capture', 'encrypted-media', 'geolocation', 'gyroscope',
  'hid', 'magnetometer', 'microphone', 'midi', 'payment', 'picture-in-picture', 'publickey-credentials-get',
  'screen-wake-lock', 'serial', 'usb', 'xr-spatial-tracking',
].map((feature) => `${feature}=()`).join(', ');

/**
 * Sent with every response (the app, its assets, the service worker, /api/, /sync/, errors, 404s):
 * the policy above, no other site may frame the app, no page leaks where it was opened from,
 * nothing is sniffed into another type, and the app keeps a browsing context of its own.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Permissions-Policy': PERMISSIONS_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** How long a request body may go on arriving after its answer, and then how long its socket is given to close. */
const BODY_AFTER_ANSWER_MS = 1_000;

export interface RelayDeps {
  log: Logger;
  fetch?: typeof fetch;
  /** Delay between the demo model's tokens; tests set 0. */
  demoDelayMs?: number;
  /** Remote pictures' rules (relay/image-proxy.ts); tests let it reach their loopback sites. */
  imageProxy?: ImageProxyOptions;
  /** Tests: runs between a sync rewrite's commit reaching the state file and the old database's deletion (a crash there). */
  afterCommitWritten?: () => void;
}

export interface Relay {
  server: Server;
  queue: UpstreamQueue;
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

const API_ROUTES: Record<string, string[]> = {
  '/api/health': ['GET'],
  '/api/v1/models': ['GET'],
  '/api/v1/chat/completions': ['POST'],
  '/api/connection': ['GET', 'PUT', 'DELETE'],
  '/api/image': ['GET'],
};

const bearerOf = (header: string | undefined): string => /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1] ?? '';

function sameSecret(presented: string, token: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The host of an Origin header, or undefined when it is not a URL ("null", garbage). */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host || undefined;
  } catch {
    return undefined;
  }
}

/** Host names a loopback-bound relay answers to; anything else is a DNS-rebinding attempt. */
function hostAllowed(config: RelayConfig, hostHeader: string | undefined): boolean {
  if (!isLoopback(config.host)) return true;
  const host = (hostHeader ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return isLoopback(host);
}

export function createRelay(config: RelayConfig, deps: RelayDeps): Relay {
  const secrets = [config.token, ...(config.sync ? [config.sync.password, config.sync.authorization ?? ''] : [])];
  const scrub = scrubber(secrets);
  const log = scrubbedLogger(deps.log, scrub);
  const upstream = new Upstream(config, scrub, deps.fetch);
  const queue = new UpstreamQueue(config.upstreamConcurrency, config.queueTimeoutMs);
  const openStreams = new Map<string, number>();
  const serveStatic = createStaticHandler(config.distDir);
  const context = { config, upstream, queue, log, openStreams, demoDelayMs: deps.demoDelayMs ?? 25, secrets, scrub };
  /** Asks the upstream for its plan's concurrency, else uses the configured units. */
  const sizeQueue = () => {
    if (!config.apiKey && !config.keyless) return;
    void upstream.planConcurrency().then((units) => {
      queue.setCapacity(units ?? config.upstreamConcurrency);
      log.info(`upstream ${upstream.host}: ${units ? `plan concurrency ${units}` : `no /plan, using ${config.upstreamConcurrency} units`}`);
    });
  };
  const connection = createConnection(config, secrets, () => {
    upstream.reset();
    sizeQueue();
    log.info(`connection changed: ${connection.status().mode === 'demo' ? 'demo model' : upstream.host}`);
  });
  const mode = () => connection.status().mode;

  const proxyImage = createImageProxy(deps.imageProxy);
  const devices = createDeviceRegistry(config.devicesFile);
  const generations = config.sync ? createSyncGenerations(config.sync, config.syncStateFile, { ...(deps.fetch ? { fetch: deps.fetch } : {}), scrub, log: (line) => log.info(line), ...(deps.afterCommitWritten ? { afterCommitWritten: deps.afterCommitWritten } : {}) }) : null;
  // A database retired by a commit the relay did not live to finish deleting goes now.
  void generations?.deleteRetired();
  const syncProxy = createSyncProxy(config.sync, generations, { bodyTimeoutMs: config.bodyTimeoutMs, ...(deps.fetch ? { fetch: deps.fetch } : {}), scrub });

  /**
   * What every API and sync call must pass: a token (when the relay has one), the owner's or a
   * device's own, and this app's own origin. Answers who is calling.
   */
  function guard(req: IncomingMessage, needsToken = true): Caller {
    let caller: Caller = { kind: 'open' };
    if (config.token && needsToken) {
      const presented = bearerOf(req.headers.authorization);
      const device = presented ? devices.authenticate(presented) : undefined;
      if (device) caller = { kind: 'device', device };
      else if (sameSecret(presented, config.token)) caller = { kind: 'owner' };
      else if (presented.startsWith(DEVICE_TOKEN_PREFIX)) {
        throw new RelayHttpError(401, 'device_removed', 'This device was removed from this relay: pair it again from a device that syncs, or enter the relay token.', { 'WWW-Authenticate': 'Bearer' });
      } else {
        throw new RelayHttpError(401, 'relay_unauthorized', 'This relay needs its token: send Authorization: Bearer <RELAY_TOKEN>.', { 'WWW-Authenticate': 'Bearer' });
      }
    }
    const origin = req.headers.origin;
    if (origin !== undefined && hostOf(origin) !== req.headers.host) {
      // A sandboxed frame or a file page sends "null"; neither is this app.
      throw new RelayHttpError(403, 'relay_unauthorized', 'Requests from other sites are refused.');
    }
    return caller;
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string) {
    // A pairing link's code is the credential of the one call that trades it for a device token.
    if (path === '/api/devices/claim') {
      guard(req, false);
      return claimDevice(req, res, devices, !config.token, config.bodyTimeoutMs);
    }
    const caller = guard(req);
    if (path === '/api/devices' || path.startsWith('/api/devices/')) return devicesApi(req, res, path, caller, devices, config.bodyTimeoutMs);
    if (path === '/api/sync/rewrites' || path === '/api/sync/rewrites/commit') {
      if (!generations) throw new RelayHttpError(404, 'not_found', 'This relay has no sync server: set SYNC_COUCHDB_URL (and SYNC_DATABASE) where the relay runs.');
      if (req.method !== 'POST') throw new RelayHttpError(405, 'method_not_allowed', `${path} takes POST.`, { Allow: 'POST' });
      const body = ((await readJsonBody(req, 1024, config.bodyTimeoutMs)) ?? {}) as { fresh?: unknown; lease?: unknown; device?: unknown };
      if (path === '/api/sync/rewrites') {
        if (typeof body.device !== 'string' || body.device.length > 100) throw new RelayHttpError(400, 'invalid_request', 'Send { "device": "…" }: the database id of the device writing the story anew.');
        return sendJson(res, 201, await generations.begin(body.fresh === true, body.device));
      }
      if (typeof body.lease !== 'string') throw new RelayHttpError(400, 'invalid_request', 'Send { "lease": "…" }: the lease the rewrite began with.');
      return sendJson(res, 200, await generations.commit(body.lease));
    }
    const methods = API_ROUTES[path];
    if (!methods) throw new RelayHttpError(404, 'not_found', `No such API route: ${path}`);
    if (!methods.includes(req.method ?? '')) {
      throw new RelayHttpError(405, 'method_not_allowed', `${path} takes ${methods.join(' or ')}, not ${req.method}.`, { Allow: methods.join(', ') });
    }
    switch (path) {
      case '/api/connection':
        // Reaching here means the caller passed a token, or the relay answers only this computer. A
        // device's own token is for sync and the model proxy: changing the connection takes the owner's.
        if (req.method !== 'GET' && caller.kind === 'device') {
          throw new RelayHttpError(403, 'owner_only', 'Changing the model connection takes the relay token (RELAY_TOKEN), not a device\'s own.');
        }
        if (req.method === 'GET') sendJson(res, 200, connection.status());
        else if (req.method === 'DELETE') sendJson(res, 200, connection.remove());
        else sendJson(res, 200, connection.set(await readJsonBody(req, 16 * 1024, config.bodyTimeoutMs)));
        return;
      case '/api/health':
        sendJson(res, 200, {
          ok: true,
          mode: mode(),
          upstream: mode() === 'demo' ? null : upstream.host,
          models: config.allowedModels,
          queue: queue.stats,
          // Whether /sync/ leads anywhere: a device asks this before trying to sync.
          sync: config.sync !== null,
        });
        return;
      case '/api/v1/models': {
        const list = mode() === 'demo' ? DEMO_MODELS.map((id) => ({ id, object: 'model', owned_by: 'demo' })) : await upstream.listModels();
        const allowed = config.allowedModels.length ? list.filter((m) => config.allowedModels.includes(m.id)) : list;
        sendJson(res, 200, { object: 'list', data: allowed });
        return;
      }
      case '/api/image':
        await proxyImage(req, res);
        return;
      case '/api/v1/chat/completions':
        await handleCompletions(req, res, context, req.socket.remoteAddress ?? 'unknown');
        return;
    }
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    let path = '/';
    try {
      path = new URL(req.url ?? '/', 'http://relay.invalid').pathname;
    } catch {
      // an unparsable URL is answered as a 404 below
    }
    // Once answered, a body still arriving is drained for a moment (a small one sent just after its
    // headers lands in that time), then the socket is closed instead of held open by a trickle.
    res.on('finish', () => {
      if (req.complete) return;
      req.resume();
      const socket = req.socket;
      const cut = setTimeout(() => {
        socket.end();
        setTimeout(() => socket.destroy(), BODY_AFTER_ANSWER_MS).unref();
      }, BODY_AFTER_ANSWER_MS).unref();
      req.once('end', () => clearTimeout(cut));
    });
    const isApi = path === '/api' || path.startsWith('/api/');
    const isSync = path === '/sync' || path.startsWith('/sync/');
    if (isApi || isSync) {
      res.on('close', () => {
        const ended = res.writableFinished ? '' : ' (client went away)';
        log.info(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)}ms${ended}`);
      });
    }
    const handle = async () => {
      if (!hostAllowed(config, req.headers.host)) {
        throw new RelayHttpError(403, 'relay_unauthorized', 'Unexpected Host header: this relay only answers as localhost.');
      }
      if (isApi) await api(req, res, path);
      else if (isSync) {
        guard(req);
        await syncProxy(req, res, path, new URL(req.url ?? '/', 'http://relay.invalid').search);
      } else await serveStatic(req, res, path);
    };
    handle().catch((error: unknown) => {
      if (error instanceof RelayHttpError) {
        sendError(res, error);
        // The unread rest of a refused body would corrupt the next request on a kept-alive connection.
        const socket = req.socket;
        if (error.headers.Connection === 'close') res.on('finish', () => socket?.destroy());
        return;
      }
      if (res.destroyed) return;
      log.error(`unexpected error on ${req.method} ${path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendError(res, new RelayHttpError(500, 'internal_error', 'The relay failed unexpectedly; see its log.'));
    });
  });
  // Streams can be long; the defaults would cut a slow story off mid-sentence.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;

  return {
    server,
    queue,
    async listen() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      sizeQueue();
      const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
      return { url: `http://${shownHost}:${port}`, port };
    },
    close() {
      devices.flush();
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
