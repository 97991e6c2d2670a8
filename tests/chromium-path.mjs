// Where the browser tests find Chromium: CHROMIUM_PATH, else Debian's or Ubuntu's usual paths.
import { accessSync, constants } from 'node:fs';

const CANDIDATES = (process.env.ROLEPLAY_CHROMIUM_CANDIDATES ?? '/usr/bin/chromium:/usr/bin/chromium-browser:/snap/bin/chromium').split(':');

export function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** @returns {string | undefined} */
export function findChromium() {
  if (process.env.CHROMIUM_PATH) return executable(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined;
  return CANDIDATES.find(executable);
}
