import type { Engine } from '../engine/engine.ts';
import type { BackupSummary } from '../engine/log/backup-lines.ts';
import { checkBackupFile, gzipLines } from './backup-streams.ts';

/**
 * Backups kept inside the browser, in OPFS beside the database (never inside its pool): written by
 * the leader, each one read back and checked before it counts and before an older one is deleted.
 * A file is written under a `.partial` name and renamed once whole, so a tab closing halfway
 * leaves nothing that looks like a backup (and its missing trailer would give it away anyway).
 */
export const BACKUP_DIRECTORY = 'roleplay-engine-backups';

export type BackupReason = 'daily' | 'before-restore' | 'before-fresh-start' | 'before-reset';
/** How many backups of each reason are kept. */
export const BACKUPS_KEPT: Record<BackupReason, number> = { daily: 14, 'before-restore': 5, 'before-fresh-start': 5, 'before-reset': 5 };
const NAME = /^roleplay-engine-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)-([a-z-]+)\.jsonl\.gz$/;

export interface StoredBackup extends BackupSummary {
  name: string;
  reason: BackupReason;
  writtenAt: number;
  size: number;
}

async function directory(): Promise<FileSystemDirectoryHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(BACKUP_DIRECTORY, { create: true });
}

/** Writes a backup of the log as it stands, checks it, then drops the oldest of its reason beyond the number kept. */
export async function writeBackup(engine: Engine, reason: BackupReason, now = Date.now()): Promise<StoredBackup> {
  const dir = await directory();
  const name = `roleplay-engine-${new Date(now).toISOString().replace(/[:.]/g, '-')}-${reason}.jsonl.gz`;
  const partial = await dir.getFileHandle(`${name}.partial`, { create: true });
  const writable = await partial.createWritable();
  await gzipLines(engine.backupLines()).pipeTo(writable);
  const written = await partial.getFile();
  // Only a file that reads back whole counts as a backup.
  const summary = await checkBackupFile(engine, written);
  const movable = partial as FileSystemFileHandle & { move?: (name: string) => Promise<void> };
  if (typeof movable.move === 'function') await movable.move(name);
  else {
    const whole = await (await dir.getFileHandle(name, { create: true })).createWritable();
    await written.stream().pipeTo(whole);
    await dir.removeEntry(`${name}.partial`);
  }
  await dir.getFileHandle(`${name}.json`, { create: true }).then(async (meta) => {
    const out = await meta.createWritable();
    await out.write(JSON.stringify(summary));
    await out.close();
  });
  const stored: StoredBackup = { ...summary, name, reason, writtenAt: now, size: written.size };
  await prune(dir, reason);
  return stored;
}

/** Every backup kept here, newest first. */
export async function listBackups(): Promise<StoredBackup[]> {
  const dir = await directory();
  const found: StoredBackup[] = [];
  for await (const [name, handle] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    const match = NAME.exec(name);
    if (!match || handle.kind !== 'file') continue;
    try {
      const file = await (handle as FileSystemFileHandle).getFile();
      const meta = await dir.getFileHandle(`${name}.json`).then((h) => h.getFile()).then((f) => f.text());
      const summary = JSON.parse(meta) as BackupSummary;
      const writtenAt = Date.parse(match[1]!.replace(/T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, 'T$1:$2:$3.$4Z'));
      found.push({ ...summary, name, reason: match[2] as BackupReason, writtenAt, size: file.size });
    } catch {
      // A backup without its summary was never finished: it is not listed (and pruned in time).
    }
  }
  return found.sort((a, b) => b.writtenAt - a.writtenAt);
}

export async function backupFile(name: string): Promise<File> {
  if (!NAME.test(name)) throw new Error('No such backup.');
  const dir = await directory();
  return (await dir.getFileHandle(name)).getFile();
}

/** The newest backups of a reason are kept; older ones (and leftovers of unfinished writes) go. */
async function prune(dir: FileSystemDirectoryHandle, reason: BackupReason): Promise<void> {
  const all = await listBackups();
  for (const old of all.filter((b) => b.reason === reason).slice(BACKUPS_KEPT[reason])) {
    await dir.removeEntry(old.name).catch(() => {});
    await dir.removeEntry(`${old.name}.json`).catch(() => {});
  }
  for await (const [name] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    if (name.endsWith('.partial')) await dir.removeEntry(name).catch(() => {});
  }
}
