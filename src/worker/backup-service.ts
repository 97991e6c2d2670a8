import type { Engine } from '../engine/engine.ts';
import { backupFile as storedBackupFile, listBackups, writeBackup, type BackupReason } from './backup-store.ts';
import { restoreBackupFile } from './backup-streams.ts';

/** What the page hands over as a backup: a File or Blob, or the name of one kept in this browser. */
function isStored(value: unknown): value is { stored: string } {
  return typeof value === 'object' && value !== null && typeof (value as { stored?: unknown }).stored === 'string';
}

/**
 * The backups the leader keeps in this browser: one a day, one before a reset or a restore, one at
 * a time; and a restore, which waits for the backup being written so no file mixes two logs.
 */
export class BackupService {
  /** The backup being written, if any. */
  private backingUp: Promise<unknown> = Promise.resolve();
  private dailyTimer: ReturnType<typeof setInterval> | undefined;
  restoring = false;

  /** Writes a backup, one at a time. The daily one runs beside play (the file is read a page at a time). */
  backup(engine: Engine | undefined, reason: BackupReason): Promise<unknown> {
    if (!engine) return Promise.resolve();
    const next = this.backingUp.catch(() => {}).then(() => writeBackup(engine, reason));
    this.backingUp = next.catch((error: unknown) => console.error(`The ${reason} backup could not be written`, error));
    return next;
  }

  /** A backup a day, written on the first open after 24 hours (and checked hourly while open), in a quiet moment. */
  scheduleDaily(engine: Engine, whenQuiet: () => Promise<boolean>): void {
    this.stopDaily();
    // One wait at a time: hours without a quiet moment must not stack up waits.
    let waiting = false;
    const backupWhenQuiet = () => {
      if (waiting) return;
      waiting = true;
      void whenQuiet()
        .then((still) => (still ? this.daily(engine) : undefined))
        .finally(() => (waiting = false));
    };
    backupWhenQuiet();
    this.dailyTimer = setInterval(backupWhenQuiet, 60 * 60_000);
  }

  stopDaily(): void {
    clearInterval(this.dailyTimer);
  }

  private async daily(engine: Engine): Promise<void> {
    if (engine.headSeq() === 0 || this.restoring) return;
    const newest = (await listBackups().catch(() => [])).find((b) => b.reason === 'daily');
    if (newest && Date.now() - newest.writtenAt < 24 * 60 * 60_000) return;
    await this.backup(engine, 'daily').catch(() => {});
  }

  /**
   * The backup a restore, a check or a download names: a file handed over, or one kept here. A
   * kept one is read in turn with the backups being written: a daily may be rebuilt through newer
   * ones, which writing the next daily turns into shared files.
   */
  async file(value: unknown): Promise<Blob> {
    if (value instanceof Blob) return value;
    if (!isStored(value)) throw new Error('Choose a backup file.');
    const read = this.backingUp.catch(() => {}).then(() => storedBackupFile(value.stored));
    this.backingUp = read.catch(() => {});
    return read;
  }

  /**
   * Replaces the log with a backup file's. Nothing else runs meanwhile (the leader is stopped by
   * the caller); what is here now is backed up first (and checked), so a restore can always be
   * taken back.
   */
  async restore(engine: () => Promise<Engine>, file: Blob, keepsBackups: boolean): Promise<void> {
    this.restoring = true;
    try {
      await this.backingUp;
      const target = await engine();
      if (keepsBackups && target.headSeq() > 0) await this.backup(target, 'before-restore');
      await restoreBackupFile(target, file);
    } finally {
      this.restoring = false;
    }
  }
}
