import { claimPairing, saveRelayToken } from './device-token.ts';
import { PAIR, refusePairing } from './relay-token.ts';

const CODE = 'rpe_p_';

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
    if (!(await claimPairing(carried))) refusePairing();
  } else if (carried) {
    await saveRelayToken(carried);
  }
  return true;
}
