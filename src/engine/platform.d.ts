/**
 * The only platform globals the engine may use: each exists, with these shapes, in browsers, in
 * workers and in Node 20. `src/engine/tsconfig.json` compiles the engine against these and the
 * plain ECMAScript library, with no DOM, WebWorker or Node types, so anything else is an error.
 * (The project's main tsconfig, which has the DOM, leaves this file out.)
 */

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

declare function queueMicrotask(callback: () => void): void;
declare function setTimeout(callback: () => void, milliseconds?: number): unknown;
declare function clearTimeout(handle: unknown): void;

/** An opaque WebCrypto key. */
interface CryptoKey {
  readonly type: string;
}
/** SHA-256 for migrations; PBKDF2 and AES-GCM for sync's end-to-end encryption. */
declare var crypto: {
  getRandomValues<T extends Uint8Array>(array: T): T;
  readonly subtle: {
    digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
    importKey(format: 'raw', keyData: Uint8Array, algorithm: 'PBKDF2' | { name: 'AES-GCM' }, extractable: boolean, usages: string[]): Promise<CryptoKey>;
    deriveBits(algorithm: { name: 'PBKDF2'; salt: Uint8Array; iterations: number; hash: 'SHA-256' }, baseKey: CryptoKey, length: number): Promise<ArrayBuffer>;
    encrypt(algorithm: { name: 'AES-GCM'; iv: Uint8Array }, key: CryptoKey, data: Uint8Array): Promise<ArrayBuffer>;
    decrypt(algorithm: { name: 'AES-GCM'; iv: Uint8Array }, key: CryptoKey, data: Uint8Array): Promise<ArrayBuffer>;
  };
};

declare class TextEncoder {
  encode(input?: string): Uint8Array;
  /** Writes straight into SQLite's memory when binding a parameter. */
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number };
}

/** Decodes card text (UTF-8); `fatal` makes bytes that are not UTF-8 an error instead of U+FFFD. */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}

/** Only passed through to the openai SDK (tests hand the relay client a fetch of their own). */
declare function fetch(input: string | URL, init?: unknown): Promise<unknown>;
