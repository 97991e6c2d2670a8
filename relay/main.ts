import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config-error.ts';
import { loadConfig, readEnvFile } from './config.ts';
import { consoleLogger } from './logger.ts';
import { createRelay } from './server.ts';
import { distDir } from './static-files.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const envFile = process.env.RELAY_ENV_FILE ?? `${projectRoot}.relay.env`;

try {
  // What the app sets in Settings → Connection, and the devices it lets in, are kept beside
  // .relay.env, readable by this user only.
  const config = loadConfig({ RELAY_CONNECTION_FILE: `${projectRoot}.relay-connection.json`, RELAY_DEVICES_FILE: `${projectRoot}.relay-devices.json`, RELAY_SYNC_STATE_FILE: `${projectRoot}.relay-sync.json`, ...readEnvFile(envFile), ...process.env }, distDir(projectRoot));
  if (!existsSync(config.distDir)) {
    console.error(`No built app in ${config.distDir}. Run "npm run build" first, or "npm start" to build and serve.`);
    process.exit(1);
  }
  const relay = createRelay(config, { log: consoleLogger });
  const { url } = await relay.listen();
  console.log(`Roleplay Engine: ${url}/`);
  console.log(
    config.apiKey || config.keyless
      ? `Model server: ${new URL(config.upstream).host}${config.apiKey ? ' (key configured)' : ''}`
      : 'No FEATHERLESS_API_KEY: answering from the built-in demo model. Put a key in .relay.env to play for real.',
  );
  const stop = () => void relay.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Relay not started: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
