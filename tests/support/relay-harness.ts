import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { loadConfig } from '../../relay/config.ts';
import { createRelay, type RelayDeps } from '../../relay/server.ts';
import { scratchDir } from './scratch.ts';

export const TEST_KEY = 'rc_test_key_0123456789abcdefSECRET';

export const GZIPPED_ASSET = JSON.stringify({ model: { vocab: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`token${i}`, i])) } });

/** A tiny dist/ so the relay's static side has something to serve. */
export function makeDist(): string {
  const dir = scratchDir('relay-dist-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(dir, 'assets', 'app-Ab12Cd34.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'sqlite3-Zz99Yy88.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(join(dir, 'manifest.webmanifest'), '{}');
  // A large asset the build gzipped beside itself (as it does the tokenizers).
  writeFileSync(join(dir, 'assets', 'tokenizer-Qq11Ww22.json'), GZIPPED_ASSET);
  writeFileSync(join(dir, 'assets', 'tokenizer-Qq11Ww22.json.gz'), gzipSync(GZIPPED_ASSET));
  return dir;
}

/** Starts a real relay on a free loopback port; every log line is kept for the tests to read. */
export async function startRelay(env: Record<string, string>, options: { demoDelayMs?: number; fetch?: typeof fetch; imageProxy?: RelayDeps['imageProxy']; afterCommitWritten?: () => void } = {}) {
  const logs: string[] = [];
  const config = loadConfig({ RELAY_PORT: '0', ...env }, makeDist());
  const relay = createRelay(config, {
    log: { info: (m) => logs.push(m), error: (m) => logs.push(m) },
    demoDelayMs: options.demoDelayMs ?? 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.imageProxy ? { imageProxy: options.imageProxy } : {}),
    ...(options.afterCommitWritten ? { afterCommitWritten: options.afterCommitWritten } : {}),
  });
  const { url } = await relay.listen();
  const client = (extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
    new OpenAI({ baseURL: `${url}/api/v1`, apiKey: 'not-used-by-the-relay', maxRetries: 0, ...extra });
  return { url, logs, relay, config, client, close: () => relay.close() };
}
export type RunningRelay = Awaited<ReturnType<typeof startRelay>>;
