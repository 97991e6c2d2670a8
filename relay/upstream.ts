import type { RelayConfig } from './config.ts';
import { RelayHttpError } from './http-error.ts';
import { modelCost } from './upstream-queue.ts';
import { readBounded } from './upstream-body.ts';

/** More than any real error message; an upstream sending more is not read further. */
const ERROR_BODY_BYTES = 64 * 1024;

export interface UpstreamModel {
  id: string;
  model_class?: string;
  [key: string]: unknown;
}

/** The one upstream the relay talks to. The key is added here and nowhere else. */
export class Upstream {
  private models: { at: number; list: UpstreamModel[] } | undefined;
  /** When /models last failed: pricing then treats every model as unknown until the cache period ends. */
  private modelsFailedAt = -Infinity;

  constructor(
    private readonly config: RelayConfig,
    private readonly scrub: (text: string) => string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** The connection changed: what was learnt of the old server no longer holds. */
  reset(): void {
    this.models = undefined;
    this.modelsFailedAt = -Infinity;
  }

  get host(): string {
    return new URL(this.config.upstream).host;
  }

  /** The key goes only to the origin it was given for: a request anywhere else carries none. */
  private headers(url: string, extra: Record<string, string> = {}): Record<string, string> {
    const own = this.config.keyOrigin !== '' && new URL(url).origin === this.config.keyOrigin;
    return {
      ...(this.config.apiKey && own ? { Authorization: `Bearer ${this.config.apiKey}` } : {}),
      'HTTP-Referer': this.config.referer,
      'X-Title': this.config.title,
      ...extra,
    };
  }

  /**
   * A request to the upstream with a deadline for its response headers. The deadline ends once
   * headers arrive; streaming bodies may then run as long as the caller keeps reading.
   */
  async request(path: string, init: { method: string; body?: string; accept: string; signal?: AbortSignal; fromRoot?: boolean }): Promise<Response> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    init.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.config.upstreamTimeoutMs);
    try {
      // llama.cpp's /props sits at the server's root, beside its /v1.
      const url = init.fromRoot ? new URL(path, this.config.upstream).href : `${this.config.upstream}${path}`;
      return await this.fetchImpl(url, {
        method: init.method,
        headers: this.headers(url, { Accept: init.accept, ...(init.body ? { 'Content-Type': 'application/json' } : {}) }),
        ...(init.body ? { body: init.body } : {}),
        signal: controller.signal,
      });
    } catch (error) {
      if (timedOut) {
        throw new RelayHttpError(
          504,
          'upstream_timeout',
          `The model server did not answer within ${Math.round(this.config.upstreamTimeoutMs / 1000)} s.`,
        );
      }
      if (init.signal?.aborted) throw error;
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new RelayHttpError(502, 'upstream_unreachable', `Could not reach the model server at ${this.host}: ${this.scrub(reason)}`);
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Turns a non-2xx upstream response into the typed error the UI shows. The body is scrubbed, then cut. */
  async failure(response: Response): Promise<RelayHttpError> {
    const detail = await describeBody(response, this.scrub, this.config.upstreamTimeoutMs);
    const retryAfter = response.headers.get('retry-after');
    switch (true) {
      case response.status === 401 || response.status === 403:
        return new RelayHttpError(
          401,
          'upstream_key_rejected',
          `The model server rejected the API key. Check FEATHERLESS_API_KEY and restart the relay. (${detail})`,
        );
      case response.status === 429:
        return new RelayHttpError(429, 'upstream_busy', `The model server is busy or the plan's limit was reached: ${detail}`, {
          'Retry-After': retryAfter && /^\d+$/.test(retryAfter) ? retryAfter : '5',
        });
      case response.status >= 500:
        return new RelayHttpError(502, 'upstream_error', `The model server failed (${response.status}): ${detail}`);
      default:
        return new RelayHttpError(response.status, 'invalid_request', `The model server refused the request: ${detail}`);
    }
  }

  async listModels(): Promise<UpstreamModel[]> {
    if (this.models && Date.now() - this.models.at < this.config.modelsCacheMs) return this.models.list;
    const response = await this.request('/models', { method: 'GET', accept: 'application/json' });
    if (!response.ok) throw await this.failure(response);
    const text = this.scrub(await readBounded(response, { maxBytes: this.config.maxEventBytes, idleMs: this.config.upstreamTimeoutMs, what: 'a model list' }));
    let body: { data?: unknown } | null = null;
    try {
      // Redacted again decoded: an escaped key is whole once parsed.
      body = JSON.parse(this.scrub(JSON.stringify(JSON.parse(text)))) as { data?: unknown };
    } catch {
      body = null;
    }
    const listed = Array.isArray(body?.data)
      ? (body.data as unknown[]).filter((m): m is UpstreamModel => typeof (m as UpstreamModel)?.id === 'string')
      : [];
    const list = await this.withServedContext(listed);
    this.models = { at: Date.now(), list };
    return list;
  }

  /**
   * llama.cpp lists the context a model was trained to (`meta.n_ctx_train`, 131,072 for Llama 3.1),
   * not the one it serves (`-c 8192`): a budget sized from the first overflows the second. The
   * served one is in its /props; it is written into the entries as `meta.n_ctx`, which the app
   * reads. A server without /props leaves the entries as they are, and the app leaves the budget
   * to Settings.
   */
  private async withServedContext(list: UpstreamModel[]): Promise<UpstreamModel[]> {
    const metaOf = (m: UpstreamModel) => (typeof m.meta === 'object' && m.meta !== null ? (m.meta as Record<string, unknown>) : null);
    if (!list.some((m) => metaOf(m)?.n_ctx_train !== undefined && metaOf(m)?.n_ctx === undefined)) return list;
    let served: number | undefined;
    try {
      const response = await this.request('/props', { method: 'GET', accept: 'application/json', fromRoot: true });
      if (response.ok) {
        const props = JSON.parse(await readBounded(response, { maxBytes: 1024 * 1024, idleMs: this.config.upstreamTimeoutMs, what: 'the server properties' })) as Record<string, unknown>;
        const settings = (typeof props.default_generation_settings === 'object' && props.default_generation_settings !== null ? props.default_generation_settings : {}) as Record<string, unknown>;
        const n = settings.n_ctx ?? props.n_ctx;
        if (typeof n === 'number' && Number.isInteger(n) && n > 0) served = n;
      }
    } catch {
      // No /props, or not JSON: nothing is added.
    }
    return served === undefined ? list : list.map((m) => (metaOf(m)?.n_ctx_train !== undefined && metaOf(m)?.n_ctx === undefined ? { ...m, meta: { ...metaOf(m), n_ctx: served } } : m));
  }

  /** What a request for `model` costs in plan units; a model the list does not know costs 1. */
  async costOf(model: string): Promise<number> {
    // A server without a usable /models must not be asked again on every completion.
    const retry = Date.now() - this.modelsFailedAt >= this.config.modelsCacheMs;
    const known = retry
      ? await this.listModels().catch(() => {
          this.modelsFailedAt = Date.now();
          return [];
        })
      : [];
    const entry = known.find((m) => m.id === model);
    return entry ? modelCost(entry.model_class ?? entry.id) : modelCost(model);
  }

  /** The plan's concurrency units, or undefined when the upstream has no /plan (a local server). */
  async planConcurrency(): Promise<number | undefined> {
    try {
      const response = await this.request('/plan', { method: 'GET', accept: 'application/json' });
      if (!response.ok) return undefined;
      return findConcurrency(JSON.parse(await readBounded(response, { maxBytes: 64 * 1024, idleMs: this.config.upstreamTimeoutMs, what: 'a plan' })));
    } catch {
      return undefined;
    }
  }
}

/** Featherless does not document /plan's body: take a positive `concurrency` number wherever it is. */
export function findConcurrency(value: unknown, depth = 0): number | undefined {
  if (depth > 3 || typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (/concurrency/i.test(key) && typeof inner === 'number' && Number.isInteger(inner) && inner > 0) return inner;
  }
  for (const inner of Object.values(value)) {
    const found = findConcurrency(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * What an error body says: only the upstream's JSON error message, in at most 300 characters, read
 * within bounds and redacted before it is cut (a cut key would leak its start). Anything else it
 * sent (an HTML page, another service's documents) is never passed on: the status says enough.
 */
async function describeBody(response: Response, scrub: (text: string) => string, idleMs: number): Promise<string> {
  let text: string;
  try {
    text = scrub(await readBounded(response, { maxBytes: ERROR_BODY_BYTES, idleMs, what: 'an error' }));
  } catch (error) {
    return error instanceof RelayHttpError ? `HTTP ${response.status} (${error.message})` : `HTTP ${response.status}`;
  }
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    // Redacted again decoded (an escaped key is whole once parsed), then cut.
    if (typeof message === 'string' && message.trim()) return scrub(message.trim()).slice(0, 300);
  } catch {
    // not JSON: only the status is told
  }
  return `HTTP ${response.status}`;
}
