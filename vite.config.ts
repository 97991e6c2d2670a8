import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';
import { VitePWA } from 'vite-plugin-pwa';
import { earlyDatabaseWorker } from './build/early-database-worker.ts';
import { gzipLargeAssets } from './build/gzip-large-assets.ts';
import { solidTrustedTemplates } from './build/solid-trusted-templates.ts';

const withSourceMaps = process.env.SOURCE_MAPS === '1';

export default defineConfig({
  plugins: [
    solidTrustedTemplates(),
    solid(),
    earlyDatabaseWorker(),
    gzipLargeAssets(),
    VitePWA({
      // A new version waits for the user's "Reload to update": never swap the app under a story.
      registerType: 'prompt',
      injectRegister: null,
      includeAssets: ['icons/icon.svg', 'icons/apple-touch-icon.png', 'robots.txt'],
      manifest: {
        name: 'Roleplay Engine',
        short_name: 'Roleplay',
        description: 'Local-first roleplay chat with bots that remember what they witnessed.',
        theme_color: '#16141d',
        background_color: '#16141d',
        display: 'standalone',
        start_url: '/',
        scope: '/',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The worker chunk and sqlite3.wasm must be cached too, or nothing opens offline.
        globPatterns: ['**/*.{js,css,html,wasm,webmanifest,png,svg,ico,txt}'],
        // sqlite-wasm ships helpers this app never loads.
        globIgnores: ['**/sqlite3-worker1*', '**/sqlite3-opfs-async-proxy*', '**/*.map'],
        maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//],
        cleanupOutdatedCaches: true,
        // One file, no importScripts: the service worker runs under the same Trusted Types policy.
        inlineWorkboxRuntime: true,
        sourcemap: withSourceMaps,
      },
    }),
  ],
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@sqlite.org/sqlite-wasm'] },
  // Source maps only when asked for (SOURCE_MAPS=1 npm run build): the relay serves whatever is built.
  build: {
    target: 'es2022',
    sourcemap: withSourceMaps,
    rolldownOptions: {
      output: {
        // zod decides whether it may compile its parsers when a schema is made, and the CSP refuses
        // eval: zod-without-eval must run before any schema exists. In one chunk with zod it runs as
        // soon as zod does, whichever chunk first makes a schema (a shared one made state/fields.ts's
        // schemas before the main chunk's body had switched it off).
        codeSplitting: { groups: [{ name: 'zod', test: /node_modules[\\/]zod[\\/]|zod-without-eval/ }] },
      },
    },
  },
});
