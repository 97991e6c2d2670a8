#!/usr/bin/env node
// Run by `npm test` before anything else: the browser tests need Node >= 20.19 and a Chromium.
// Finds Chromium (CHROMIUM_PATH, else Debian's or Ubuntu's usual paths); on Debian or Ubuntu
// without one, installs it with apt-get (as root, or through sudo when that needs no password);
// otherwise stops here with one line saying exactly what to run. Never downloads a browser build.
import { spawnSync } from 'node:child_process';
import { executable, findChromium } from './chromium-path.mjs';

function stop(line) {
  console.error(line);
  process.exit(1);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) stop(`The tests need Node 20.19 or newer (this is ${process.versions.node}): install it, then run npm test again.`);

if (process.env.CHROMIUM_PATH && !executable(process.env.CHROMIUM_PATH)) {
  stop(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file: point it at a Chromium, or unset it to use Debian's (sudo apt-get install -y chromium).`);
}
if (findChromium()) process.exit(0);

const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (!hasApt) stop('The browser tests need Chromium: install it and set CHROMIUM_PATH=/path/to/chromium, then run npm test again.');
const root = process.getuid?.() === 0;
const sudo = !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
if (!root && !sudo) stop('The browser tests need Chromium: run `sudo apt-get install -y chromium` (or set CHROMIUM_PATH), then npm test again.');

console.log('== installing Chromium from Debian (the browser tests drive it)');
const prefix = root ? '' : 'sudo ';
const install = spawnSync('sh', ['-c', `${prefix}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${prefix}apt-get install -y -qq chromium`], { stdio: 'inherit' });
if (install.status !== 0 || !findChromium()) stop('Installing Chromium failed: run `sudo apt-get install -y chromium` (or set CHROMIUM_PATH), then npm test again.');
