import { relayFetch } from './relay-token.ts';
import { t } from './i18n/index.ts';

/** The relay's answer, or its error message (written for people by the relay), with the relay's error code as `code`. */
export async function relayJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await relayFetch(path, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
  const body = (await response.json().catch(() => null)) as (T & { error?: { message?: string; code?: string } }) | null;
  if (!response.ok) throw Object.assign(new Error(body?.error?.message ?? t('connection.http', response.status)), { code: body?.error?.code });
  return body as T;
}
