import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CONFIG = resolve('.dependency-cruiser.cjs');
const DEPCRUISE = resolve('node_modules/.bin/depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** dependency-cruiser over `src` and `relay` of a tree, with the project's rules: what it refuses. */
async function violations(cwd: string): Promise<string[]> {
  const run = await promisify(execFile)(DEPCRUISE, ['src', 'relay', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    // It exits non-zero when it finds violations; the report is on stdout all the same.
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  const report = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`).sort();
}

describe('the layering', () => {
  it('holds in this tree: the engine pure, the UI through its public modules, the relay apart, no cycles', async () => {
    expect(await violations(process.cwd())).toEqual([]);
  });

  it('is enforced: a tree that breaks each rule is refused for each', async () => {
    expect(await violations(resolve('tests/fixtures/layering'))).toEqual([
      'engine-is-pure: src/engine/impure.ts → src/ui/page.ts',
      'no-cycles: src/ui/a.ts → src/ui/page.ts → src/ui/a.ts',
      'relay-apart: relay/server.ts → src/engine/deep/inner.ts',
      'ui-through-the-engine-public-modules: src/ui/page.ts → src/engine/deep/inner.ts',
    ]);
  });
});
