import { RelayHttpError } from './http-error.ts';

export const stalled = (idleMs: number) =>
  new RelayHttpError(504, 'upstream_timeout', `The model stopped answering: nothing came for ${Math.round(idleMs / 1000)} s.`);

export const tooLarge = (what: string, maxBytes: number) =>
  new RelayHttpError(502, 'upstream_too_large', `The model server sent ${what} larger than the relay's limit of ${maxBytes.toLocaleString('en-US')} bytes.`);

/**
 * Reads an upstream body as text, within a size limit and an idle deadline (the time allowed
 * between two pieces). Either one cancels the body, so a stalled or endless upstream frees its
 * queue slot instead of holding it forever. The client going away (`signal`) cancels it too.
 */
export async function readBounded(response: Response, limits: { maxBytes: number; idleMs: number; what: string; signal?: AbortSignal }): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  let failure: RelayHttpError | undefined;
  let idle: NodeJS.Timeout | undefined;
  const stop = (error: RelayHttpError | undefined) => {
    failure ??= error;
    void reader.cancel().catch(() => {});
  };
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => stop(stalled(limits.idleMs)), limits.idleMs);
  };
  const onAbort = () => stop(undefined);
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      arm();
      const { value, done } = await reader.read();
      if (failure) throw failure;
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        stop(tooLarge(limits.what, limits.maxBytes));
        throw failure!;
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    clearTimeout(idle);
    limits.signal?.removeEventListener('abort', onAbort);
  }
}
