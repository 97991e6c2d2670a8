import type { Plugin } from 'vite';

/** Where the page leaves the database worker it started, for `createEngineClient` to take. */
export const EARLY_WORKER_GLOBAL = 'rpeDatabaseWorker';

/**
 * Starts the database worker from the page's head, before the app's script is fetched and parsed:
 * the worker's own script (the engine and SQLite, half a megabyte) then loads and compiles beside
 * the app's instead of after it, and the database is opening by the time the app asks for it.
 * Production builds only; the app starts its own worker when there is none (dev, tests).
 */
export function earlyDatabaseWorker(): Plugin {
  return {
    name: 'early-database-worker',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const file = Object.keys(context.bundle ?? {}).find((name) => /(^|\/)db\.worker-[\w-]+\.js$/.test(name));
        if (!file) throw new Error('early-database-worker: the build emitted no db.worker chunk');
        const script = `try{globalThis.${EARLY_WORKER_GLOBAL}=new Worker(${JSON.stringify(`/${file}`)},{type:"module",name:"roleplay-engine-db"})}catch(e){}`;
        return [{ tag: 'script', children: script, injectTo: 'head-prepend' }];
      },
    },
  };
}
