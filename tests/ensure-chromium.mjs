#!/usr/bin/env node
// Run by `npm test` before anything else: the browser tests need Node >= 20.19, a Chromium, and a
// Firefox (Debian's firefox-esr, for the security layers' checks there).
// Finds each (CHROMIUM_PATH / FIREFOX_PATH, else Debian's or Ubuntu's usual paths); on Debian or
// Ubuntu without one, installs it with apt-get (as root, or through sudo when that needs no
// password); otherwise stops here with one line saying exactly what to run. Never downloads a
// browser build.
import { spawnSync } from 'node:child_process';
import { executable, findChromium } from './chromium-path.mjs';
import { findFirefox } from './firefox-path.mjs';

function stop(line) {
  console.error(line);
  process.exit(1);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) stop(`The tests need Node 20.19 or newer (this is ${process.versions.node}): install it, then run npm test again.`);

if (process.env.CHROMIUM_PATH && !executable(process.env.CHROMIUM_PATH)) {
  stop(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file: point it at a Chromium, or unset it to use Debian's (sudo apt-get install -y chromium).`);
}
if (process.env.FIREFOX_PATH && !executable(process.env.FIREFOX_PATH)) {
  stop(`FIREFOX_PATH=${process.env.FIREFOX_PATH} is not an executable file: point it at a Firefox, or unset it to use Debian's (sudo apt-get install -y firefox-esr).`);
}
const missing = [findChromium() ? null : 'chromium', findFirefox() ? null : 'firefox-esr'].filter(Boolean);
if (missing.length === 0) process.exit(0);
const names = missing.map((m) => (m === 'chromium' ? 'Chromium' : 'Firefox')).join(' and ');

const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (!hasApt) {
  stop(
    missing.includes('chromium')
      ? 'The browser tests need Chromium: install it and set CHROMIUM_PATH=/path/to/chromium, then run npm test again.'
      : 'The browser tests need Firefox: install it and set FIREFOX_PATH=/path/to/firefox, then run npm test again.',
  );
}
const root = process.getuid?.() === 0;
const sudo = !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
if (!root && !sudo) stop(`The browser tests need ${names}: run \`sudo apt-get install -y ${missing.join(' ')}\` (or set ${missing.includes('chromium') ? 'CHROMIUM_PATH' : 'FIREFOX_PATH'}), then npm test again.`);

console.log(`== installing ${names} from Debian (the browser tests drive ${missing.length > 1 ? 'them' : 'it'})`);
const prefix = root ? '' : 'sudo ';
const install = spawnSync('sh', ['-c', `${prefix}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${prefix}apt-get install -y -qq ${missing.join(' ')}`], { stdio: 'inherit' });
if (install.status !== 0 || !findChromium() || !findFirefox()) stop(`Installing ${names} failed: run \`sudo apt-get install -y ${missing.join(' ')}\`, then npm test again.`);
