/** What every refusal by the Content-Security-Policy is logged as, in the page and in each worker. */
export const POLICY_VIOLATION_PREFIX = 'Content-Security-Policy refused';

/**
 * Logs each refusal where it happens. The browser reports a page's refusals on the console by
 * itself, but a worker's only as an event in that worker: without this a blocked load or eval in
 * the database worker would fail silently. The tests fail on any such line.
 */
export function logPolicyViolations(scope: typeof globalThis = globalThis): void {
  scope.addEventListener('securitypolicyviolation', (event) => {
    const violation = event as SecurityPolicyViolationEvent;
    const sample = violation.sample ? ` (${violation.sample.slice(0, 80)})` : '';
    console.error(`${POLICY_VIOLATION_PREFIX} ${violation.effectiveDirective}: ${violation.blockedURI || 'inline'}${sample} at ${violation.sourceFile}:${violation.lineNumber}`);
  });
}
