// The dependency chain, watched: which packages may run install scripts (npm runs only those named
// in package.json's allowScripts, each given its reason in dependency-rules.json), and which known
// advisories (high or critical, in what the app ships) are accepted, each with its reason.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RULES = JSON.parse(readFileSync(new URL('./dependency-rules.json', import.meta.url), 'utf8'));

/**
 * Install scripts not decided by name: a package in the lockfile that wants to run one must be in
 * package.json's allowScripts (true or false), and each one allowed must say why in the rules.
 */
export function installScriptProblems(lock, pkg, rules = RULES) {
  const decided = pkg.allowScripts ?? {};
  const wanting = new Set(
    Object.entries(lock.packages ?? {})
      .filter(([, info]) => info.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  );
  const problems = [...wanting].filter((name) => !(name in decided)).map((name) => `${name} wants an install script and is in neither allowScripts list: npm install-scripts approve|deny ${name}`);
  for (const [name, allowed] of Object.entries(decided)) {
    if (allowed === true && !rules.installScripts[name]?.trim()) problems.push(`${name} may run its install script, but .ci/dependency-rules.json gives no reason`);
  }
  return problems;
}

/**
 * What an `npm audit --json` report says must stop the build: every high or critical advisory not
 * excepted with a reason. An exception without a reason is itself a problem.
 */
export function auditProblems(report, rules = RULES) {
  const problems = [];
  for (const [name, exception] of Object.entries(rules.auditExceptions)) {
    if (!exception?.reason?.trim()) problems.push(`the exception for ${name} gives no reason`);
  }
  for (const [name, finding] of Object.entries(report.vulnerabilities ?? {})) {
    if (finding.severity !== 'high' && finding.severity !== 'critical') continue;
    const advisories = (finding.via ?? []).filter((via) => typeof via === 'object').map((via) => via.url ?? via.source);
    const excepted = rules.auditExceptions[name];
    const uncovered = excepted ? advisories.filter((id) => !excepted.advisories?.includes(id)) : advisories;
    if (!excepted || uncovered.length) problems.push(`${name} (${finding.severity}): ${(uncovered.length ? uncovered : ['via a dependency']).join(', ')}`);
  }
  return problems;
}

function audit() {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: ROOT, encoding: 'utf8' });
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    report = { message: run.stderr.trim().split('\n').at(-1) };
  }
  if (!report.vulnerabilities) {
    // The registry gave no audit (this build machine's registry answers the advisory endpoint 405).
    const why = report.message ?? report.error?.summary ?? 'no report';
    if (process.env.AUDIT_REQUIRED === '1') {
      console.error(`npm audit could not run (${why}), and AUDIT_REQUIRED=1.`);
      process.exit(1);
    }
    console.warn(`!! npm audit could not run here (${why}): the advisory check was skipped. Set AUDIT_REQUIRED=1 where the registry answers it.`);
    return;
  }
  const problems = auditProblems(report);
  if (problems.length) {
    console.error(`npm audit --omit=dev found advisories of high severity or above:\n- ${problems.join('\n- ')}\nUpgrade, or add an exception with its reason to .ci/dependency-rules.json.`);
    process.exit(1);
  }
  console.log(`== npm audit --omit=dev: nothing high or critical (${Object.keys(report.vulnerabilities).length} lower findings)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) audit();
