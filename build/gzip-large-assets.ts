import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Assets this large are served gzipped: the tokenizers (7–33 MB of JSON, a fifth of that gzipped). */
const LARGE = 1024 * 1024;

/**
 * Writes `name.gz` beside each large JSON asset once the build is written, for the relay to serve
 * to browsers that accept gzip (all of them): a Gemma 3 player fetches 5.6 MB, not 33.
 */
export function gzipLargeAssets(): Plugin {
  let outDir = 'dist';
  return {
    name: 'gzip-large-assets',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        const path = join(assets, name);
        if (name.endsWith('.json') && statSync(path).size >= LARGE) writeFileSync(`${path}.gz`, gzipSync(readFileSync(path), { level: 6 }));
      }
    },
  };
}
