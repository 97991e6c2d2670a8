// Where the Firefox tests find Firefox: FIREFOX_PATH, else Debian's firefox-esr or a plain firefox.
import { executable } from './chromium-path.mjs';

const CANDIDATES = (process.env.ROLEPLAY_FIREFOX_CANDIDATES ?? '/usr/bin/firefox-esr:/usr/bin/firefox').split(':');

/** @returns {string | undefined} */
export function findFirefox() {
  if (process.env.FIREFOX_PATH) return executable(process.env.FIREFOX_PATH) ? process.env.FIREFOX_PATH : undefined;
  return CANDIDATES.find(executable);
}
