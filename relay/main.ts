import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStaticHandler, distDir } from './static-files.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const root = distDir(projectRoot);
if (!existsSync(root)) {
  console.error(`No built app in ${root}. Run "npm run build" first, or "npm start" to build and serve.`);
  process.exit(1);
}

const host = process.env.RELAY_HOST ?? '127.0.0.1';
const port = Number(process.env.RELAY_PORT ?? 8787);
const serveStatic = createStaticHandler(root);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://relay.invalid');
  serveStatic(req, res, url.pathname).catch((error: unknown) => {
    console.error('static file error:', error instanceof Error ? error.message : error);
    if (!res.headersSent) res.writeHead(500).end();
  });
});

server.listen(port, host, () => {
  console.log(`Roleplay Engine: http://${host}:${port}/`);
});
