import { CHAT_LIST_FILE, type ChatListSnapshot } from '../engine/chat-list-snapshot.ts';

/**
 * The leader keeps the chat list as it stands in a file of its own beside the database, so a tab
 * starting cold paints the list before SQLite has even compiled (`src/engine/chat-list-snapshot.ts`).
 * It is written after every commit that changes the list (and when a leader opens the database),
 * one write at a time, the newest list always winning. `createWritable` swaps the file in whole when
 * it closes, so a reader (or a crash) sees the old list or the new one, never half of one. Changes
 * from another device come through this leader's sync and are kept the same way. A list the same as
 * the one last written is not written again: most of a Send's commits change no line of the list.
 */
export class ChatListKeeper {
  private writing: Promise<void> | undefined;
  private next: (() => Promise<ChatListSnapshot>) | undefined;
  /** What this keeper last wrote (nothing yet: a new leader writes once, whatever the file holds). */
  private written: string | undefined;

  /** Writes the list `read` answers; a write already running is followed by only the newest one asked for. */
  keep(read: () => Promise<ChatListSnapshot>): Promise<void> {
    this.next = read;
    this.writing ??= this.drain().finally(() => (this.writing = undefined));
    return this.writing;
  }

  /** A database that did not open leaves no list to paint: the tab shows why instead. */
  async forget(): Promise<void> {
    this.next = undefined;
    await this.writing;
    this.written = undefined;
    const root = await navigator.storage.getDirectory();
    await root.removeEntry(CHAT_LIST_FILE).catch(() => {});
  }

  private async drain(): Promise<void> {
    while (this.next) {
      const read = this.next;
      this.next = undefined;
      try {
        const text = JSON.stringify(await read());
        if (text === this.written) continue;
        const root = await navigator.storage.getDirectory();
        const file = await root.getFileHandle(CHAT_LIST_FILE, { create: true });
        const writable = await file.createWritable();
        await writable.write(text);
        await writable.close();
        this.written = text;
      } catch (error) {
        // Only the first paint of a later start is slower without it; the list itself is in the database.
        console.warn('The chat list for the first paint could not be kept', error);
      }
    }
  }
}
