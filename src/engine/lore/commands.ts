import { z } from 'zod';
import { defineCommand, id } from '../call.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { CardError } from '../cards/errors.ts';
import { MAX_LOREBOOK_ENTRIES, readLorebookFile } from './lorebook-file.ts';
import { blankEntry } from './world-info.ts';
import { shortText } from '../events/fields.ts';
import { lorebookAdded, loreEntrySchema } from './events.ts';
import { lorebookDetail, lorebookRef, type LorebookRef } from './queries.ts';


/** Lorebooks of their own brought in, entries edited or switched off, lorebooks attached to chats. */
export const loreCalls = {
  /** A SillyTavern world info or V3 lorebook file, added whole; answers the new lorebook's id. */
  addLorebook: defineCommand({
    args: z.tuple([z.object({ text: z.string().max(20 * 1024 * 1024), fileName: z.string().max(500) })]),
    run(ctx, file: { text: string; fileName: string }): string {
      let read;
      try {
        read = readLorebookFile(file.text, file.fileName);
      } catch (error) {
        if (error instanceof CardError) throw new CommandRejectedError(error.message);
        throw error;
      }
      const lorebookId = ctx.newId();
      const { entries, ...settings } = read.book;
      // What the file says, held to what an entry can be: a key of 10,000 characters, a scan depth
      // of a million, named by its entry, before anything is written.
      const checked = lorebookAdded.schema.safeParse({ lorebookId, name: read.name, format: read.format, settings, entries });
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        const [where, index, ...rest] = issue.path.map(String);
        const place = where === 'entries' ? `Entry ${Number(index) + 1}${rest.length ? ` (${rest.join('.')})` : ''}` : issue.path.join('.') || 'The lorebook';
        throw new CommandRejectedError(`This lorebook cannot be read as it is: ${place}: ${issue.message}.`);
      }
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          appendEvents(ctx, stampFirst([{ kind: 'lorebook_added', payload: { lorebookId, name: read.name, format: read.format, settings, entries } }]));
          return lorebookId;
        },
        (first) => (first.payload as { lorebookId: string }).lorebookId,
      );
    },
  }),

  /** "New lorebook": an empty one of the player's own, named; answers its id. */
  createLorebook: defineCommand({
    args: z.tuple([z.string()]),
    run(ctx, name: string): string {
      const checked = shortText(120).safeParse(name);
      if (!checked.success || !checked.data) throw new CommandRejectedError('Give the lorebook a name (up to 120 characters).');
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const lorebookId = ctx.newId();
          const settings = { scanDepth: 2, tokenBudget: 1_024, recursive: false, maxRecursion: 3 };
          appendEvents(ctx, stampFirst([{ kind: 'lorebook_added', payload: { lorebookId, name: checked.data, format: 'app', settings, entries: [] } }]));
          return lorebookId;
        },
        (first) => (first.payload as { lorebookId: string }).lorebookId,
      );
    },
  }),

  /** "Add entry": a blank entry at the end of a lorebook, for the editor to fill; answers its position. */
  addLoreEntry: defineCommand({
    args: z.tuple([lorebookRef]),
    run(ctx, ref: LorebookRef): number {
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const book = lorebookDetail(ctx.db, ref);
          if (!book) throw new CommandRejectedError('That lorebook no longer exists.');
          if (book.entryList.length >= MAX_LOREBOOK_ENTRIES) throw new CommandRejectedError(`A lorebook holds at most ${MAX_LOREBOOK_ENTRIES} entries.`);
          const position = Math.max(-1, ...book.entryList.map((e) => e.position)) + 1;
          appendEvents(ctx, stampFirst([{ kind: 'lore_entry_saved', payload: { ...ref, entry: blankEntry(position) } }]));
          return position;
        },
        (first) => (first.payload as { entry: { position: number } }).entry.position,
      );
    },
  }),

  /** An entry as the player edited it (or turned on or off), in place of what it was. */
  saveLoreEntry: defineCommand({
    args: z.tuple([lorebookRef, z.unknown()]),
    run(ctx, ref: LorebookRef, entry: unknown): void {
      const { db } = ctx;
      const parsed = loreEntrySchema.safeParse(entry);
      if (!parsed.success) throw new CommandRejectedError(`The entry needs fixing: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const book = lorebookDetail(db, ref);
          if (!book) throw new CommandRejectedError('That lorebook no longer exists.');
          if (!book.entryList.some((e) => e.position === parsed.data.position)) throw new CommandRejectedError('That entry is not in this lorebook.');
          appendEvents(ctx, stampFirst([{ kind: 'lore_entry_saved', payload: { ...ref, entry: parsed.data } }]));
        },
        () => undefined,
      );
    },
  }),

  /** "Delete lorebook": gone from the Lore page and from the chats it was attached to. */
  removeLorebook: defineCommand({
    args: z.tuple([id]),
    run(ctx, lorebookId: string): void {
      const { db } = ctx;
      command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (!db.get('SELECT 1 AS x FROM lorebooks WHERE id = ?', [lorebookId])) throw new CommandRejectedError('That lorebook no longer exists.');
          appendEvents(ctx, stampFirst([{ kind: 'lorebook_removed', payload: { lorebookId } }]));
        },
        () => undefined,
      );
    },
  }),

  /** Attaches a lorebook to a chat (its entries fire there) or takes it off. */
  attachLorebook: defineCommand({
    args: z.tuple([id, id, z.boolean()]),
    run(ctx, chatId: string, lorebookId: string, attached: boolean): void {
      const { db } = ctx;
      command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (!db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat does not exist.');
          if (!db.get('SELECT 1 AS x FROM lorebooks WHERE id = ?', [lorebookId])) throw new CommandRejectedError('That lorebook no longer exists.');
          const now = !!db.get('SELECT 1 AS x FROM chat_lorebooks WHERE chat_id = ? AND lorebook_id = ?', [chatId, lorebookId]);
          if (now !== attached) appendEvents(ctx, stampFirst([{ kind: 'lorebook_attached', chatId, payload: { lorebookId, attached } }]));
        },
        () => undefined,
      );
    },
  }),
};
