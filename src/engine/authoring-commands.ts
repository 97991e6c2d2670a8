import { appendEvents, type LogContext } from './log/append.ts';
import { command } from './log/command.ts';
import { CommandRejectedError } from './log/errors.ts';

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
  };
}
