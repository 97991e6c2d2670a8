/** Saves a file the user keeps (a backup), without reading it into the page. */
export function downloadBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function backupFileName(now = new Date()) {
  return `roleplay-engine-backup-${now.toISOString().slice(0, 10)}.jsonl.gz`;
}

/** What the file pickers for a backup accept: this format and the JSON of earlier versions. */
export const BACKUP_ACCEPT = '.gz,.jsonl.gz,application/gzip,.json,application/json';
