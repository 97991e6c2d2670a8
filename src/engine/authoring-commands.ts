import { appendEvents, type LogContext } from './log/append.ts';
import { command } from './log/command.ts';
import { CommandRejectedError } from './log/errors.ts';
import { VISIBLE } from './log/visibility.ts';

/**
 * Writing yourself and your bots. The fields are checked against the event's schema, so a bad form
 * is refused with the field and the rule named, and nothing is written.
 */
export function authoringCommands(ctx: LogContext) {
  const { db } = ctx;
  return {
    /** Saves who you are; there is one you, and saving again replaces it. */
    saveYou(fields: unknown, commandId?: string): void {
      command(
        ctx,
        commandId,
        (stampFirst) => void appendEvents(ctx, stampFirst([{ kind: 'you_authored', payload: fields as never }])),
        () => undefined,
      );
    },

    /** Creates a bot (`botId` null) or saves a new version of one; returns the bot's id. */
    saveBot(fields: unknown, botId: string | null, commandId?: string): string {
      return command(
        ctx,
        commandId,
        (stampFirst) => {
          if (botId !== null && !db.get('SELECT 1 AS x FROM bots WHERE id = ?', [botId])) {
            throw new CommandRejectedError('That bot no longer exists.');
          }
          const id = botId ?? ctx.newId();
          const payload = { ...(typeof fields === 'object' && fields !== null ? fields : {}), botId: id };
          appendEvents(ctx, stampFirst([{ kind: 'bot_authored', payload: payload as never }]));
          return id;
        },
        (first) => (first.payload as { botId: string }).botId,
      );
    },

    /**
     * "Reset…": the bot's story state goes in every chat; `confirmName` must be its exact name
     * (what the dialog asked the player to type), so a stray click can never do it.
     */
    resetBot(botId: string, confirmName: string, commandId?: string): void {
      command(ctx, commandId, (stampFirst) => {
        const bot = db.get<{ name: string }>('SELECT name FROM bots WHERE id = ?', [botId]);
        if (!bot) throw new CommandRejectedError('That bot no longer exists.');
        if (confirmName !== bot.name) throw new CommandRejectedError(`Type the bot's exact name, ${bot.name}, to reset it.`);
        appendEvents(ctx, stampFirst([{ kind: 'bot_reset', payload: { botId } }]));
      }, () => undefined);
    },

    /** Undoes the bot's latest reset still in force: everything it cleared comes back. */
    undoBotReset(botId: string, commandId?: string): void {
      command(ctx, commandId, (stampFirst) => {
        const reset = db.get<{ id: string }>(
          `SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND json_extract(r.payload, '$.botId') = ? AND ${VISIBLE('r')}
           ORDER BY r.id DESC LIMIT 1`,
          [botId],
        );
        if (!reset) throw new CommandRejectedError('This bot has no reset to undo.');
        appendEvents(ctx, stampFirst([{ kind: 'bot_reset_undone', payload: { reset: reset.id } }]));
      }, () => undefined);
    },
  };
}
