/** Saves the exported log as a file the user keeps. */
export function downloadJson(value: unknown, name: string) {
  const blob = new Blob([JSON.stringify(value)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function backupFileName(now = new Date()) {
  return `roleplay-engine-backup-${now.toISOString().slice(0, 10)}.json`;
}

/** Reads a chosen file as JSON; a file that is not JSON gets a sentence, not a stack trace. */
export async function readJsonFile(file: File): Promise<unknown> {
  const text = await file.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`"${file.name}" is not a backup: it is not JSON.`);
  }
}
