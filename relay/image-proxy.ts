import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { RelayHttpError } from './http-error.ts';

/**
 * `GET /api/image?url=…`: a picture from another site, fetched by the relay for the app when the
 * player has allowed remote images. The page's CSP keeps `img-src` to the app itself; this is the
 * one door, and it is narrow:
 * - only the app asks (it sends `X-Roleplay-Engine: image`, which another site's page cannot send
 *   here without a CORS preflight the relay never grants), past the relay's token like any API call;
 * - only http(s) on the usual ports, no user info, and never an address on this machine or a private
 *   network (every address the name resolves to is checked, and the connection goes to the checked
 *   one, so DNS cannot answer differently in between); redirects (up to 3) are checked the same way;
 * - only a picture: the upstream's type must say PNG, JPEG, GIF, WebP, AVIF or BMP and the bytes
 *   must start as one (no SVG: it can hold script), at most 8 MB, within 15 s;
 * - nothing of the player's goes along: no cookies, no referrer, no token.
 */
export interface ImageProxyOptions {
  /** Whether an address may be fetched from; by default only public ones. Tests allow loopback. */
  allowAddress?: (address: string, port: number) => boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

const MAX_REDIRECTS = 3;
export const IMAGE_PROXY_HEADER = 'x-roleplay-engine';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64], ['2002::', 16], ['2001::', 32]] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** A public address: not this machine, a private or link-local network, or a reserved range (IPv4 inside IPv6 too). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const PICTURE_TYPES: Record<string, (b: Uint8Array) => boolean> = {
  'image/png': (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => String.fromCharCode(...b.subarray(0, 4)) === 'GIF8',
  'image/webp': (b) => String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP',
  'image/avif': (b) => String.fromCharCode(...b.subarray(4, 8)) === 'ftyp',
  'image/bmp': (b) => b[0] === 0x42 && b[1] === 0x4d,
};

/** The address asked for, checked: http(s), the usual port, no user info. */
function parseTarget(raw: string | null): URL {
  if (!raw) throw new RelayHttpError(400, 'invalid_request', 'Say which picture: /api/image?url=<its address>.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RelayHttpError(400, 'invalid_request', 'That is not a web address.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RelayHttpError(400, 'invalid_request', 'Only http and https pictures are fetched.');
  if (url.username || url.password) throw new RelayHttpError(400, 'invalid_request', 'A picture address with a user name or password is not fetched.');
  return url;
}

interface Fetched {
  status: number;
  headers: IncomingMessage['headers'];
  body: IncomingMessage;
}

/** One request to the checked address (no redirect followed), nothing of the player's sent. */
async function fetchOnce(url: URL, options: Required<ImageProxyOptions>, signal: AbortSignal): Promise<Fetched> {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (addresses.length === 0) throw new RelayHttpError(502, 'upstream_unreachable', `The picture's site (${url.hostname}) could not be found.`);
  const refused = addresses.find((a) => !options.allowAddress(a.address, port));
  if (refused) throw new RelayHttpError(403, 'relay_unauthorized', `Pictures are not fetched from ${url.hostname}: it is on this computer or a private network, or not on the usual port.`);
  const chosen = addresses[0]!;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: { Accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/bmp', 'User-Agent': 'RoleplayEngine-relay' },
        // The connection goes to the address checked above, whatever the name resolves to now.
        lookup: (_name, opts, callback) => {
          if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [chosen]);
          else callback(null, chosen.address, chosen.family);
        },
        signal,
        ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
      },
      (res) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: res }),
    );
    req.on('error', reject);
    req.end();
  });
}

export function createImageProxy(given: ImageProxyOptions = {}) {
  const options: Required<ImageProxyOptions> = {
    allowAddress: given.allowAddress ?? ((address, port) => isPublicAddress(address) && (port === 80 || port === 443)),
    timeoutMs: given.timeoutMs ?? 15_000,
    maxBytes: given.maxBytes ?? 8 * 1024 * 1024,
  };

  return async function proxyImage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers[IMAGE_PROXY_HEADER] !== 'image') throw new RelayHttpError(403, 'relay_unauthorized', 'Pictures are fetched for the app only.');
    let url = parseTarget(new URL(req.url ?? '/', 'http://relay.invalid').searchParams.get('url'));
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), options.timeoutMs);
    res.on('close', () => abort.abort());
    try {
      let fetched = await fetchOnce(url, options, abort.signal);
      for (let hops = 0; fetched.status >= 300 && fetched.status < 400 && fetched.headers.location; hops++) {
        fetched.body.resume();
        if (hops === MAX_REDIRECTS) throw new RelayHttpError(502, 'upstream_error', 'The picture’s address redirects too many times.');
        url = parseTarget(new URL(fetched.headers.location, url).href);
        fetched = await fetchOnce(url, options, abort.signal);
      }
      if (fetched.status !== 200) {
        fetched.body.resume();
        throw new RelayHttpError(502, 'upstream_error', `The picture’s site answered HTTP ${fetched.status}.`);
      }
      const declared = String(fetched.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const sniff = PICTURE_TYPES[declared];
      if (!sniff) {
        fetched.body.resume();
        throw new RelayHttpError(415, 'invalid_request', `That address is not a picture this app shows (${declared || 'no type'}).`);
      }
      const length = Number(fetched.headers['content-length'] ?? 0);
      if (length > options.maxBytes) {
        fetched.body.destroy();
        throw new RelayHttpError(413, 'upstream_too_large', `That picture is over ${options.maxBytes / 1024 / 1024} MB.`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of fetched.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > options.maxBytes) {
          fetched.body.destroy();
          throw new RelayHttpError(413, 'upstream_too_large', `That picture is over ${options.maxBytes / 1024 / 1024} MB.`);
        }
        chunks.push(chunk);
      }
      const bytes = Buffer.concat(chunks);
      if (!sniff(bytes)) throw new RelayHttpError(415, 'invalid_request', `That address says it is ${declared}, but it is not.`);
      res.writeHead(200, {
        'Content-Type': declared,
        'Content-Length': bytes.length,
        'Cache-Control': 'private, max-age=86400',
        'Content-Disposition': 'inline',
      });
      res.end(bytes);
    } catch (error) {
      if (error instanceof RelayHttpError) throw error;
      if (abort.signal.aborted) throw new RelayHttpError(504, 'upstream_timeout', `The picture took longer than ${options.timeoutMs / 1000} s to arrive.`);
      throw new RelayHttpError(502, 'upstream_unreachable', `The picture could not be fetched (${(error as { code?: string }).code ?? 'connection failed'}).`);
    } finally {
      clearTimeout(timer);
    }
  };
}
