import { DEVICE_TOKEN, hasDeviceToken, keepRelayToken, relayToken, storedRelayToken } from './relay-token.ts';

// Trading tokens with the relay: loaded only when a device has one to trade (a relay token
// entered or kept from before, a pairing link's code), never with the first screen.

/** What this device is called in the relay's list until the player renames it: its browser and system. */
export function deviceLabel(): string {
  const agent = navigator.userAgent;
  const browser = /Firefox\//.test(agent) ? 'Firefox' : /Edg\//.test(agent) ? 'Edge' : /Chrom(e|ium)\//.test(agent) ? 'Chromium' : /Safari\//.test(agent) ? 'Safari' : 'Browser';
  const system = /Android/.test(agent) ? 'Android' : /iPhone|iPad/.test(agent) ? 'iOS' : /Windows/.test(agent) ? 'Windows' : /Mac OS X/.test(agent) ? 'macOS' : /Linux/.test(agent) ? 'Linux' : '';
  return system ? `${browser} on ${system}` : browser;
}

/** The relay's token traded for a token of this device's own; null when the relay does not give one (no RELAY_TOKEN, a wrong token, away). */
async function trade(ownerToken: string): Promise<string | null> {
  try {
    const response = await fetch('/api/devices', {
      method: 'POST',
      headers: { Authorization: `Bearer ${ownerToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: deviceLabel() }),
    });
    if (response.status !== 201) return null;
    const answer = (await response.json()) as { token?: unknown };
    return typeof answer.token === 'string' && answer.token.startsWith(DEVICE_TOKEN) ? answer.token : null;
  } catch {
    return null;
  }
}

/** One tab at a time trades, so two tabs starting together do not make two devices of one browser. */
const traded = (work: () => Promise<void>) => (navigator.locks ? navigator.locks.request('roleplay-engine/relay-token', work) : work());

/**
 * Entered by the player in "Relay token": the relay's own token is traded for one of this
 * device's, and forgotten; one that cannot be traded now (the relay away, or a wrong token, which
 * the banner then names) is kept as entered and traded at the next start.
 */
export async function saveRelayToken(value: string): Promise<void> {
  const entered = value.trim();
  await traded(async () => {
    keepRelayToken(entered && !entered.startsWith(DEVICE_TOKEN) ? ((await trade(entered)) ?? entered) : entered);
  });
}

/** Kept from before devices had tokens of their own (or entered while the relay was away): traded now. */
export async function tradeKeptRelayToken(): Promise<void> {
  if (!relayToken() || hasDeviceToken()) return;
  await traded(async () => {
    // Another tab may have traded it meanwhile.
    const kept = storedRelayToken();
    if (!kept || kept.startsWith(DEVICE_TOKEN)) return;
    const own = await trade(kept);
    if (own) keepRelayToken(own);
  });
}

/** A pairing link's one-time code traded for this device's own token; false when the relay refuses it (used, expired). */
export async function claimPairing(code: string): Promise<boolean> {
  try {
    const response = await fetch('/api/devices/claim', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code, name: deviceLabel() }) });
    const answer = (await response.json()) as { token?: unknown };
    if (response.status !== 201 || typeof answer.token !== 'string') return false;
    keepRelayToken(answer.token);
    return true;
  } catch {
    return false;
  }
}
