import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (env: Record<string, string>) => {
  const result = spawnSync(process.execPath, ['tests/ensure-chromium.mjs'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { status: result.status, lines: `${result.stdout}${result.stderr}`.trim().split('\n').filter(Boolean) };
};

describe("npm test's first step, on a machine that may lack Chromium", () => {
  it('goes on when CHROMIUM_PATH names an executable', () => {
    expect(run({ CHROMIUM_PATH: process.execPath })).toEqual({ status: 0, lines: [] });
  });

  it('stops with one line naming the fix when CHROMIUM_PATH is wrong', () => {
    const { status, lines } = run({ CHROMIUM_PATH: '/nowhere/chromium' });
    expect(status).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^CHROMIUM_PATH=\/nowhere\/chromium is not an executable file: .*apt-get install -y chromium/)]);
  });

  it('stops with one line naming the fix where there is no Chromium and no apt-get', () => {
    const { status, lines } = run({ ROLEPLAY_CHROMIUM_CANDIDATES: '/nowhere/a:/nowhere/b', PATH: '/nowhere' });
    expect(status).toBe(1);
    expect(lines).toEqual(['The browser tests need Chromium: install it and set CHROMIUM_PATH=/path/to/chromium, then run npm test again.']);
  });
});
