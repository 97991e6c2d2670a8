import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';
import type { PluginContext } from 'rollup';

/** Where the page leaves the database worker it started, for `createEngineClient` to take. */
export const EARLY_WORKER_GLOBAL = 'rpeDatabaseWorker';

/**
 * Starts the database worker from the page's head, before the app's script is fetched and parsed:
 * the worker's own script (the engine and SQLite, half a megabyte) then loads and compiles beside
 * the app's instead of after it, and the database is opening by the time the app asks for it.
 * The starter is a file of its own (the CSP allows no inline script), a classic script so it runs
 * before the app's module; under Trusted Types it names the worker through a policy that can only
 * ever answer that one URL. Production builds only; the app starts its own worker when there is
 * none (dev, tests).
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
        const url = JSON.stringify(`/${file}`);
        const source =
          `try{var u=${url},p=self.trustedTypes&&trustedTypes.createPolicy("early-database-worker",{createScriptURL:function(){return u}});` +
          `globalThis.${EARLY_WORKER_GLOBAL}=new Worker(p?p.createScriptURL(u):u,{type:"module",name:"roleplay-engine-db"})}catch(e){}\n`;
        const fileName = `assets/start-database-worker-${createHash('sha256').update(source).digest('hex').slice(0, 10)}.js`;
        // In a build, Vite runs this hook inside its HTML plugin's generateBundle, whose context can emit files.
        (this as unknown as PluginContext).emitFile({ type: 'asset', fileName, source });
        return [{ tag: 'script', attrs: { src: `/${fileName}` }, injectTo: 'head-prepend' }];
      },
    },
  };
}
