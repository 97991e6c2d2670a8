import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { DIST } from './harness.ts';

it('the JavaScript a first visit loads (the entry and what it preloads) stays under 80 KB gzipped; card code is not in it', () => {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"|<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1] ?? m[2]!);
  expect(files.length).toBeGreaterThan(0);
  const sizes = files.map((file) => ({ file, gzip: gzipSync(readFileSync(join(DIST, file))).length }));
  const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
  expect(total, JSON.stringify(sizes)).toBeLessThan(80 * 1024);
  for (const { file } of sizes) expect(readFileSync(join(DIST, file), 'utf8')).not.toContain('chara_card_v3');
});
