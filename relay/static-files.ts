import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Vite's hashed output (`assets/name-Ab12Cd34.js`) never changes content under the same name. */
const HASHED = /[-.][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
const NEVER_CACHE = new Set(['index.html', 'sw.js', 'registerSW.js', 'manifest.webmanifest']);

/** Whether the request takes gzip (`Accept-Encoding: gzip, deflate, br`), and not refused by `gzip;q=0`. */
function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = String(req.headers['accept-encoding'] ?? '');
  return accepted.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding?.trim() === 'gzip' || coding?.trim() === '*') && (!q || Number(q.slice(2)) > 0);
  });
}

/**
 * Serves the built app from `root`: correct types (wasm too), long cache for hashed assets, no cache
 * for the shell and the service worker, and index.html for any other GET so deep links load the
 * app. A path that escapes `root` is refused.
 */
export function createStaticHandler(root: string) {
  const base = resolve(root);

  async function fileAt(pathname: string): Promise<{ path: string; size: number } | undefined> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0')) return undefined;
    const path = resolve(base, `.${normalize(`/${decoded}`)}`);
    if (path !== base && !path.startsWith(base + sep)) return undefined;
    try {
      const info = await stat(path);
      return info.isFile() ? { path, size: info.size } : undefined;
    } catch {
      return undefined;
    }
  }

  return async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed');
      return;
    }
    const asked = await fileAt(pathname === '/' ? '/index.html' : pathname);
    const looksLikeFile = extname(pathname) !== '';
    const file = asked ?? (looksLikeFile ? undefined : await fileAt('/index.html'));
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const name = file.path.slice(base.length + 1);
    const cache = NEVER_CACHE.has(name.split(sep).join('/')) || !HASHED.test(name)
      ? 'no-cache'
      : 'public, max-age=31536000, immutable';
    // The build gzips its large assets beside them (the tokenizers): sent as such to whoever takes gzip.
    const beside = name.endsWith('.gz') ? undefined : await fileAt(`/${name.split(sep).join('/')}.gz`);
    const gzipped = beside && acceptsGzip(req) ? beside : undefined;
    const sent = gzipped ?? file;
    res.writeHead(200, {
      'Content-Type': MIME[extname(file.path)] ?? 'application/octet-stream',
      'Content-Length': sent.size,
      'Cache-Control': cache,
      'X-Content-Type-Options': 'nosniff',
      ...(beside ? { Vary: 'Accept-Encoding' } : {}),
      ...(gzipped ? { 'Content-Encoding': 'gzip' } : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(sent.path).pipe(res);
  };
}

export const distDir = (projectRoot: string) => join(projectRoot, 'dist');
