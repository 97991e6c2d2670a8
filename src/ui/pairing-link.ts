import { saveRelayToken } from './relay-token.ts';

/** A pairing link carries the relay token in its fragment, which browsers never send to a server. */
export const PAIR = '#pair=';

/**
 * Opened from a pairing link: keeps the relay token it carries in this browser and takes it out of
 * the address bar and the history. Runs before the app starts, so the first sync already carries it.
 */
export function acceptPairingLink(): boolean {
  if (!location.hash.startsWith(PAIR)) return false;
  const token = decodeURIComponent(location.hash.slice(PAIR.length));
  if (token) saveRelayToken(token);
  history.replaceState(null, '', '/settings#sync');
  return true;
}
