import { createSignal } from 'solid-js';
import { claimPairing, saveRelayToken } from './relay-token.ts';

/** A pairing link carries a one-time code (or, from before, the relay token) in its fragment, which browsers never send to a server. */
export const PAIR = '#pair=';
const CODE = 'rpe_p_';
const [refused, setRefused] = createSignal(false);
/** This tab opened a pairing link the relay no longer takes (used, or past its hour): Settings → Sync says so. */
export const pairingRefused = refused;

/**
 * Opened from a pairing link: trades its code for this device's own token (or keeps the relay
 * token an older link carries), and takes it out of the address bar and the history. Runs before
 * the app starts, so the first sync already carries the token.
 */
export async function acceptPairingLink(): Promise<boolean> {
  if (!location.hash.startsWith(PAIR)) return false;
  const carried = decodeURIComponent(location.hash.slice(PAIR.length));
  history.replaceState(null, '', '/settings#sync');
  if (carried.startsWith(CODE)) {
    if (!(await claimPairing(carried))) setRefused(true);
  } else if (carried) {
    await saveRelayToken(carried);
  }
  return true;
}
