import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the CI, without types
import { auditProblems, installScriptProblems } from '../../.ci/dependency-rules.mjs';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

describe('the dependency chain', () => {
  it('every package that wants an install script is allowed or denied by name, and each allowed one says why', () => {
    expect(installScriptProblems(read('package-lock.json'), read('package.json'))).toEqual([]);
    const lock = { packages: { 'node_modules/esbuild': { hasInstallScript: true }, 'node_modules/x/node_modules/sneaky': { hasInstallScript: true } } };
    expect(installScriptProblems(lock, { allowScripts: { esbuild: true } })).toEqual([expect.stringContaining('sneaky wants an install script')]);
    expect(installScriptProblems(lock, { allowScripts: { esbuild: true, sneaky: true } }, { installScripts: { esbuild: 'why' } })).toEqual([expect.stringContaining('sneaky may run')]);
  });

  it('an advisory of high severity or above fails the build unless excepted with its reason', () => {
    const report = {
      vulnerabilities: {
        low: { severity: 'moderate', via: [{ url: 'GHSA-low' }] },
        bad: { severity: 'high', via: [{ url: 'GHSA-bad' }] },
        worse: { severity: 'critical', via: ['bad'] },
      },
    };
    expect(auditProblems(report, { auditExceptions: {} })).toEqual(['bad (high): GHSA-bad', 'worse (critical): via a dependency']);
    const excepted = { auditExceptions: { bad: { advisories: ['GHSA-bad'], reason: 'only the dev server reaches it' }, worse: { advisories: [], reason: 'follows bad' } } };
    expect(auditProblems(report, excepted)).toEqual([]);
    expect(auditProblems(report, { auditExceptions: { bad: { advisories: ['GHSA-bad'], reason: ' ' } } })).toContain('the exception for bad gives no reason');
    expect(auditProblems({ vulnerabilities: { bad: { severity: 'high', via: [{ url: 'GHSA-new' }] } } }, excepted)).toEqual(['bad (high): GHSA-new']);
  });
});
