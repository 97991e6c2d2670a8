import type { Engine } from '../engine/engine.ts';
import type { BackupSummary } from '../engine/log/backup-lines.ts';
import { rebuiltLines, sharedLines } from './backup-delta.ts';
import { BackupDamagedError, blobOf, checkBackupFile, gunzipLines, gzipLines } from './backup-streams.ts';

/**
 * Backups kept inside the browser, in OPFS beside the database (never inside its pool): written by
 * the leader, each one read back and checked before it counts and before an older one is deleted.
 * A file is written under a `.partial` name and renamed once whole, so a tab closing halfway
 * leaves nothing that looks like a backup (and its missing trailer would give it away anyway).
 *
 * Daily backups share what they hold: the newest is a whole file, and so is the oldest of the rest
 * (so no single file is all there is); every other daily is kept as what it differs by from the
 * next newer one (`backup-delta.ts`, a day's play: kilobytes where the whole log is megabytes).
 * Deltas point only at newer backups, so the oldest can always be dropped. A shared backup is
 * rebuilt, and checked against its checksum, whenever it is downloaded or restored.
 */
export const BACKUP_DIRECTORY = 'roleplay-engine-backups';

export type BackupReason = 'daily' | 'before-restore' | 'before-fresh-start' | 'before-reset';
/** How many backups of each reason are kept. */
export const BACKUPS_KEPT: Record<BackupReason, number> = { daily: 14, 'before-restore': 5, 'before-fresh-start': 5, 'before-reset': 5 };
const NAME = /^roleplay-engine-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)-([a-z-]+)\.jsonl\.gz$/;
/** Beside a backup's name, the file of a backup kept as what it differs by from a newer one. */
const SHARED = '.shared';

export interface StoredBackup extends BackupSummary {
  name: string;
  reason: BackupReason;
  writtenAt: number;
  /** The size of the whole file, as it downloads. */
  size: number;
  /** Kept as what it differs by from a newer backup. */
  shared: boolean;
}

/** What is kept beside a backup, in `<name>.json`: its checked summary, and once it is shared, the whole file's size. */
interface BackupMeta extends BackupSummary {
  size?: number;
  /** Tried, and better kept whole (its log is not the next one's, a restore between them). */
  keptWhole?: boolean;
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
  // The summary first: a backup file is listed (and so pruned in time) only with its summary.
  await writeMeta(dir, name, summary);
  await moveFile(dir, partial, `${name}.partial`, name);
  const stored: StoredBackup = { ...summary, name, reason, writtenAt: now, size: written.size, shared: false };
  await prune(dir, reason);
  if (reason === 'daily') await shareDailies(dir);
  return stored;
}

async function writeMeta(dir: FileSystemDirectoryHandle, name: string, meta: BackupMeta): Promise<void> {
  const out = await (await dir.getFileHandle(`${name}.json`, { create: true })).createWritable();
  await out.write(JSON.stringify(meta));
  await out.close();
}

async function fileIn(dir: FileSystemDirectoryHandle, name: string): Promise<File | undefined> {
  try {
    return await (await dir.getFileHandle(name)).getFile();
  } catch {
    return undefined;
  }
}

/** The lines of a kept backup, rebuilt through the backups it shares with when it is shared. */
async function* linesOf(dir: FileSystemDirectoryHandle, name: string, depth = 0): AsyncGenerator<string> {
  const whole = await fileIn(dir, name);
  if (whole) {
    yield* gunzipLines(whole.stream() as ReadableStream<Uint8Array>);
    return;
  }
  const shared = await fileIn(dir, `${name}${SHARED}`);
  if (!shared) throw new BackupDamagedError(depth ? `The backup ${name}, which an older one shares its lines with, is gone.` : 'No such backup.');
  // Its base is the next newer daily: shared backups are made against it, and only the oldest
  // backups are ever removed (the base is checked by its checksum as it is read, all the same).
  const base = await nextNewerDaily(dir, name);
  if (!base) throw new BackupDamagedError(`The backup ${name} shares its lines with a newer backup that is gone.`);
  yield* rebuiltLines(gunzipLines(shared.stream() as ReadableStream<Uint8Array>), linesOf(dir, base, depth + 1));
}

/** The name of the daily backup written next after this one, if it is still kept. */
async function nextNewerDaily(dir: FileSystemDirectoryHandle, name: string): Promise<string | undefined> {
  let next: string | undefined;
  for await (const [entry] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    const whole = entry.endsWith(SHARED) ? entry.slice(0, -SHARED.length) : entry;
    if (NAME.exec(whole)?.[2] === 'daily' && whole > name && (next === undefined || whole < next)) next = whole;
  }
  return next;
}

/**
 * Keeps every daily but the newest and the oldest whole one as what it differs by from the next
 * newer daily, oldest first (so each is made against a whole file). A shared file counts only
 * once it has been rebuilt, checked, and moved into place; only then is the whole one removed.
 */
async function shareDailies(dir: FileSystemDirectoryHandle): Promise<void> {
  const dailies = (await listBackups()).filter((b) => b.reason === 'daily');
  const older = dailies.slice(1);
  const wholes = older.filter((b) => !b.shared);
  const anchor = wholes.at(-1);
  for (const backup of wholes.reverse()) {
    if (backup === anchor || backup.keptWhole) continue;
    const base = dailies[dailies.indexOf(backup) - 1]!;
    try {
      await share(dir, backup, base);
    } catch (error) {
      // The whole file stays: a backup is never the worse for a failed attempt to share it.
      console.error(`The backup ${backup.name} could not be shared with ${base.name}`, error);
    }
  }
}

async function share(dir: FileSystemDirectoryHandle, backup: StoredBackup & BackupMeta, base: StoredBackup): Promise<void> {
  if (await fileIn(dir, `${backup.name}${SHARED}`)) {
    // Shared, checked and moved into place before the app stopped: only the whole file is left to remove.
    await dir.removeEntry(backup.name);
    return;
  }
  // Worth sharing only when the differences are a small part of the file (not after a restore),
  // and the shared file smaller than the whole one.
  const lines = await sharedLines(linesOf(dir, backup.name), linesOf(dir, base.name), base.name, backup.size * 2);
  const meta: BackupMeta = { ...summaryOf(backup), size: backup.size };
  if (!lines) return writeMeta(dir, backup.name, { ...meta, keptWhole: true });
  const partialName = `${backup.name}${SHARED}.partial`;
  const partial = await dir.getFileHandle(partialName, { create: true });
  await gzipLines(lines.values()).pipeTo(await partial.createWritable());
  const written = await partial.getFile();
  if (written.size >= backup.size) {
    await dir.removeEntry(partialName);
    return writeMeta(dir, backup.name, { ...meta, keptWhole: true });
  }
  // Rebuilt from what is on disk before it replaces the whole file: the rebuild checks every line
  // against the whole file's own checksum, which was checked when the whole file was written.
  let lineCount = 0;
  for await (const _ of rebuiltLines(gunzipLines(written.stream() as ReadableStream<Uint8Array>), linesOf(dir, base.name))) lineCount++;
  if (lineCount !== backup.events + 2) throw new BackupDamagedError(`The shared backup rebuilds ${lineCount - 2} events of ${backup.events}.`);
  await writeMeta(dir, backup.name, meta);
  await moveFile(dir, partial, partialName, `${backup.name}${SHARED}`);
  await dir.removeEntry(backup.name);
}

function summaryOf(b: BackupSummary): BackupSummary {
  return { version: b.version, exportedAt: b.exportedAt, database: b.database, events: b.events, bots: b.bots, chats: b.chats, turns: b.turns };
}

/** Renames a finished file (OPFS `move` where the browser has it; a copy and a delete where not). */
async function moveFile(dir: FileSystemDirectoryHandle, handle: FileSystemFileHandle, from: string, to: string): Promise<void> {
  const movable = handle as FileSystemFileHandle & { move?: (name: string) => Promise<void> };
  if (typeof movable.move === 'function') return movable.move(to);
  const whole = await (await dir.getFileHandle(to, { create: true })).createWritable();
  await (await handle.getFile()).stream().pipeTo(whole);
  await dir.removeEntry(from);
}

/** Every backup kept here, newest first (a shared one under the name of the whole file it stands for). */
export async function listBackups(): Promise<(StoredBackup & Pick<BackupMeta, 'keptWhole'>)[]> {
  const dir = await directory();
  const found = new Map<string, StoredBackup & Pick<BackupMeta, 'keptWhole'>>();
  for await (const [entry, handle] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    const shared = entry.endsWith(SHARED);
    const name = shared ? entry.slice(0, -SHARED.length) : entry;
    const match = NAME.exec(name);
    if (!match || handle.kind !== 'file' || (shared && found.get(name)?.shared === false)) continue;
    try {
      const file = await (handle as FileSystemFileHandle).getFile();
      const meta = JSON.parse(await dir.getFileHandle(`${name}.json`).then((h) => h.getFile()).then((f) => f.text())) as BackupMeta;
      const writtenAt = Date.parse(match[1]!.replace(/T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, 'T$1:$2:$3.$4Z'));
      // Where both are here (the app stopped between the move and the removal), the whole file is the one listed.
      found.set(name, { ...summaryOf(meta), name, reason: match[2] as BackupReason, writtenAt, size: shared ? (meta.size ?? file.size) : file.size, shared, keptWhole: meta.keptWhole });
    } catch {
      // A backup without its summary was never finished: it is not listed (and pruned in time).
    }
  }
  return [...found.values()].sort((a, b) => b.writtenAt - a.writtenAt);
}

/** A kept backup as a whole file: as it is on disk, or rebuilt (and checked against its checksum) when it is shared. */
export async function backupFile(name: string): Promise<Blob> {
  if (!NAME.test(name)) throw new Error('No such backup.');
  const dir = await directory();
  const whole = await fileIn(dir, name);
  if (whole) return whole;
  if (!(await fileIn(dir, `${name}${SHARED}`))) throw new Error('No such backup.');
  try {
    return await blobOf(gzipLines(linesOf(dir, name)));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new BackupDamagedError(`This backup is kept as what it differs by from the newer daily backups, and it cannot be rebuilt from them: ${why}`);
  }
}

/** The newest backups of a reason are kept; older ones (and leftovers of unfinished writes) go. */
async function prune(dir: FileSystemDirectoryHandle, reason: BackupReason): Promise<void> {
  const all = await listBackups();
  for (const old of all.filter((b) => b.reason === reason).slice(BACKUPS_KEPT[reason])) {
    await dir.removeEntry(old.name).catch(() => {});
    await dir.removeEntry(`${old.name}${SHARED}`).catch(() => {});
    await dir.removeEntry(`${old.name}.json`).catch(() => {});
  }
  const names: string[] = [];
  for await (const [name] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) names.push(name);
  for (const name of names) {
    const summaryOfNothing = name.endsWith('.json') && !names.includes(name.slice(0, -5)) && !names.includes(`${name.slice(0, -5)}${SHARED}`);
    if (name.endsWith('.partial') || summaryOfNothing) await dir.removeEntry(name).catch(() => {});
  }
}
