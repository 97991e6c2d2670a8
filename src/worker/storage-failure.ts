/** A write the storage refused (SQLITE_IOERR, SQLITE_FULL: OPFS out of quota or failing). */
export function isStorageFailure(error: unknown): boolean {
  const code = (error as { resultCode?: unknown })?.resultCode;
  if (typeof code === 'number' && [10, 13].includes(code & 0xff)) return true;
  return /QuotaExceeded|disk I\/O error|database or disk is full/i.test(error instanceof Error ? `${error.name} ${error.message}` : String(error));
}

/** What the player is told when a write was refused: why, in words, and that nothing saved before was lost. */
export async function describeStorageFailure(): Promise<string> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  const full = estimate?.usage !== undefined && estimate.quota !== undefined && estimate.quota > 0 && estimate.usage / estimate.quota > 0.9;
  const why = full ? "this browser's storage for the app is full" : 'the browser could not write to its storage';
  return `Your last change was not saved: ${why}. Free some space (or export a backup), then try again. Everything saved before is unchanged.`;
}
