import type { ServerResponse } from 'node:http';

/**
 * Every error the relay returns has this OpenAI-shaped JSON body, so the `openai` SDK surfaces it as
 * an APIError, and a `code` the UI can map to a specific banner with a Retry.
 */
export type ErrorCode =
  | 'not_found'
  | 'method_not_allowed'
  | 'relay_unauthorized'
  | 'body_too_large'
  | 'body_timeout'
  | 'invalid_json'
  | 'invalid_request'
  | 'model_not_allowed'
  | 'too_many_streams'
  | 'queue_timeout'
  | 'upstream_key_rejected'
  | 'upstream_busy'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_unreachable'
  | 'upstream_no_response'
  | 'upstream_too_large'
  | 'sync_login_refused'
  | 'device_removed'
  | 'pairing_used'
  | 'owner_only'
  | 'sync_generation_changed'
  | 'rewrite_lost'
  | 'rewrite_busy'
  | 'internal_error';

export class RelayHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RelayHttpError';
  }
}

export function errorBody(code: ErrorCode, message: string) {
  return { error: { message, type: code, code } };
}

export function sendError(res: ServerResponse, error: RelayHttpError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(errorBody(error.code, error.message));
  res.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...error.headers,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}
