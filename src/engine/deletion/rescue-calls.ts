import { z } from 'zod';
import { defineCommand, defineQuery, id, none } from '../call.ts';
import { getBot } from '../authoring/queries.ts';
import { importSillyTavernChat } from '../chat-import/import.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { purgeRescues, rescuedFile, type PurgeRescue } from '../log/purge-rescue.ts';

/**
 * What another device's Delete forever took that held turns written here and never synced
 * (`log/purge-rescue.ts`): listed for the player, who keeps each as a new chat or a file, or lets
 * it go. Local to this device: none of it is an event until a copy is kept.
 */
export const rescueCalls = {
  purgeRescues: defineQuery({ args: none, run: ({ db }): PurgeRescue[] => purgeRescues(db) }),
  /** The copy as a SillyTavern chat file, for a download. */
  rescuedChatFile: defineQuery({
    args: z.tuple([id]),
    run({ db }, chatId: string): string {
      const file = rescuedFile(db, chatId);
      if (file === null) throw new CommandRejectedError('That copy is no longer kept.');
      return file;
    },
  }),
  /** "Keep a copy": the story as it was here, a new chat with the same bot; answers its id. */
  keepRescuedChat: defineCommand({
    args: z.tuple([id]),
    run(ctx, chatId: string): string {
      const rescue = purgeRescues(ctx.db).find((r) => r.chatId === chatId);
      if (!rescue) throw new CommandRejectedError('That copy is no longer kept.');
      const bot = rescue.botId ? getBot(ctx.db, rescue.botId) : null;
      if (!bot || bot.deleted) throw new CommandRejectedError(`${rescue.botName ?? 'Its bot'} was deleted too: download the copy instead.`);
      const title = `${rescue.title} (kept from this device)`.slice(0, 120);
      // One transaction: the copy is kept and its notice goes, or neither.
      return ctx.db.transaction(() => {
        const kept = importSillyTavernChat(ctx, bot, { text: rescuedFile(ctx.db, chatId)!, botId: bot.id, title }, ctx.commandId);
        ctx.db.run('DELETE FROM purge_rescues WHERE chat_id = ?', [chatId]);
        return kept;
      });
    },
  }),
  /** "Let it go": the copy is dropped; nothing else changes. */
  letRescueGo: defineCommand({
    args: z.tuple([id]),
    run({ db }, chatId: string): boolean {
      return db.run('DELETE FROM purge_rescues WHERE chat_id = ?', [chatId]) > 0;
    },
  }),
};
