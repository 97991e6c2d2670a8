/**
 * The layering the code keeps, checked by `npm test` (tests/tooling/layering.test.ts runs this):
 * the engine is pure, the UI reaches the engine only through its public modules, the relay stands
 * apart, and no module imports itself round a cycle. Type-only imports count: a type cycle is
 * still a knot a reader has to untie.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Import cycles make load order matter and rooms impossible to read one at a time.',
      severity: 'error',
      from: { path: '^(src|relay)/' },
      to: { circular: true },
    },
    {
      name: 'engine-is-pure',
      comment: 'The engine runs in the worker and in Node tests alike: no UI, worker, relay or Node import.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^(src/ui|src/worker|relay|tests|bench)/|^solid-js|^@solidjs/|^comlink' },
    },
    {
      name: 'engine-no-node-builtins',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'ui-through-the-engine-public-modules',
      comment: 'The UI imports engine code from src/engine/for-ui.ts (and for-ui-files.ts, loaded on demand, and for-first-screen.ts, which builds no schema) only.',
      severity: 'error',
      from: { path: '^src/ui/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/for-(ui(-files)?|first-screen)\\.ts$' },
    },
    {
      name: 'ui-knows-the-worker-by-its-types',
      comment: 'The worker runs in its own thread: the UI may name its types, never load its code.',
      severity: 'error',
      from: { path: '^src/ui/' },
      to: { path: '^src/worker/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-rules-stand-alone',
      comment: 'src/browser holds what every browser context of the app sets up first (Trusted Types, the CSP log, zod without eval): it imports none of the app.',
      severity: 'error',
      from: { path: '^src/browser/' },
      to: { path: '^(src/ui|src/worker|src/engine|relay)/' },
    },
    {
      name: 'worker-not-ui',
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: '^(src/ui|relay)/' },
    },
    {
      name: 'relay-apart',
      comment: 'The relay is a Node server: it shares only the CouchDB validation rule with the engine.',
      severity: 'error',
      from: { path: '^relay/' },
      to: { path: '^(src|tests|bench)/', pathNot: '^src/engine/sync/validation-design\\.ts$' },
    },
    {
      name: 'app-not-tests',
      severity: 'error',
      from: { path: '^(src|relay)/' },
      to: { path: '^(tests|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
