import { z } from 'zod';
import { defineCommand, id } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import type { LogContext } from '../log/context.ts';
import type { EventDraft } from '../log/draft.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { VISIBLE } from '../log/visibility.ts';
import { checkAvatar } from './images.ts';
import { defaultPersona } from './personas.ts';
import { rareKind } from '../log/rare-kinds.ts';

/** A read model sent back as a form (its `avatar: null`, `background: null`) means no picture: the field is left out, as events expect. */
function withoutEmptyAvatar(fields: unknown): unknown {
  if (typeof fields !== 'object' || fields === null) return fields;
  const rest = { ...(fields as Record<string, unknown>) };
  for (const key of ['avatar', 'background']) if (key in rest && rest[key] === null) delete rest[key];
  return rest;
}

function refuseGonePersona(ctx: LogContext, personaId: string): void {
  if (!ctx.db.get('SELECT 1 AS x FROM you WHERE id = ? AND removed = 0', [personaId])) throw new CommandRejectedError('That persona is no longer there.');
}

/** One event about a persona that is still there (a re-sent command writes nothing again). */
function withPersona(ctx: LogContext & { commandId?: string }, personaId: string, draft: EventDraft): void {
  command(
    ctx,
    ctx.commandId,
    (stampFirst) => {
      refuseGonePersona(ctx, personaId);
      appendEvents(ctx, stampFirst([draft]));
    },
    () => undefined,
  );
}

/**
 * Writing yourself and your bots. The fields are checked against the event's schema, so a bad form
 * is refused with the field and the rule named, and nothing is written.
 */
export const authoringCalls = {
  /** Saves who you are by default (Settings' "Who you are"): the default persona, replaced. */
  saveYou: defineCommand({
    args: z.tuple([z.unknown()]),
    run(ctx, given: unknown): void {
      const fields = withoutEmptyAvatar(given);
      command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          checkAvatar(ctx, fields);
          const personaId = defaultPersona(ctx.db)?.id ?? 'you';
          appendEvents(ctx, stampFirst([{ kind: 'you_authored', payload: { ...(fields as object), ...(personaId === 'you' ? {} : { personaId }) } as never }]));
        },
        () => undefined,
      );
    },
  }),

  /** Creates a persona (`personaId` null) or saves one; answers its id. */
  savePersona: defineCommand({
    args: z.tuple([z.unknown(), z.union([z.literal('you'), id]).nullable()]),
    run(ctx, given: unknown, personaId: string | null): string {
      const fields = withoutEmptyAvatar(given);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (personaId !== null) refuseGonePersona(ctx, personaId);
          checkAvatar(ctx, fields);
          const target = personaId ?? ctx.newId();
          appendEvents(ctx, stampFirst([{ kind: 'you_authored', payload: { ...(fields as object), ...(target === 'you' ? {} : { personaId: target }) } as never }]));
          return target;
        },
        (first) => (first.payload as { personaId?: string }).personaId ?? 'you',
      );
    },
  }),

  /** The persona new chats (and chats that chose none) play. */
  setDefaultPersona: defineCommand({
    args: z.tuple([z.union([z.literal('you'), id])]),
    run: (ctx, personaId: string) => withPersona(ctx, personaId, { kind: 'default_persona_set', payload: { personaId } }),
  }),

  /** Puts a persona away (not the first): chats that played it play the default; their lines keep its name. */
  removePersona: defineCommand({
    args: z.tuple([id]),
    run: (ctx, personaId: string) => withPersona(ctx, personaId, { kind: 'persona_removed', payload: { personaId } }),
  }),

  /** Who you play in this chat from now on: an event of the story, so it follows rewind, branch and sync. */
  choosePersona: defineCommand({
    args: z.tuple([id, z.union([z.literal('you'), id])]),
    run(ctx, chatId: string, personaId: string): void {
      if (!ctx.db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat is no longer there.');
      withPersona(ctx, personaId, { kind: 'chat_persona_chosen', chatId, payload: { personaId } });
    },
  }),

  /** Creates a bot (`botId` null) or saves a new version of one; returns the bot's id. */
  saveBot: defineCommand({
    args: z.tuple([z.unknown(), id.nullable()]),
    run(ctx, given: unknown, botId: string | null): string {
      const { db } = ctx;
      const fields = withoutEmptyAvatar(given);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (botId !== null && !db.get('SELECT 1 AS x FROM bots WHERE id = ?', [botId])) {
            throw new CommandRejectedError('That bot no longer exists.');
          }
          checkAvatar(ctx, fields);
          const id = botId ?? ctx.newId();
          const payload = { ...(typeof fields === 'object' && fields !== null ? fields : {}), botId: id };
          appendEvents(ctx, stampFirst([{ kind: 'bot_authored', payload: payload as never }]));
          return id;
        },
        (first) => (first.payload as { botId: string }).botId,
      );
    },
  }),

  /**
   * Saves a bot imported from a character card, with the card kept whole beside it, in one
   * command: a new bot, or (`botId`) an update of the one the same card made before.
   */
  importCard: defineCommand({
    args: z.tuple([z.object({ fields: z.unknown(), card: z.unknown(), spec: z.unknown(), format: z.unknown() }), id.nullable()]),
    run(ctx, imported: { fields: unknown; card: unknown; spec: unknown; format: unknown }, botId: string | null): string {
      const { db } = ctx;
      const fields = withoutEmptyAvatar(imported.fields);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (botId !== null && !db.get('SELECT 1 AS x FROM bots WHERE id = ?', [botId])) throw new CommandRejectedError('That bot no longer exists.');
          checkAvatar(ctx, fields);
          const id = botId ?? ctx.newId();
          const payload = { ...(typeof fields === 'object' && fields !== null ? fields : {}), botId: id };
          appendEvents(
            ctx,
            stampFirst([
              { kind: 'bot_authored', payload: payload as never },
              { kind: 'card_kept', payload: { botId: id, card: imported.card, spec: imported.spec, format: imported.format } as never },
            ]),
          );
          return id;
        },
        (first) => (first.payload as { botId: string }).botId,
      );
    },
  }),

  /**
   * "Reset…": the bot's story state goes in every chat; `confirmName` must be its exact name
   * (what the dialog asked the player to type), so a stray click can never do it.
   */
  resetBot: defineCommand({
    args: z.tuple([id, z.string().max(200)]),
    rebuilds: true,
    run(ctx, botId: string, confirmName: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const bot = db.get<{ name: string }>('SELECT name FROM bots WHERE id = ?', [botId]);
        if (!bot) throw new CommandRejectedError('That bot no longer exists.');
        if (confirmName !== bot.name) throw new CommandRejectedError(`Type the bot's exact name, ${bot.name}, to reset it.`);
        appendEvents(ctx, stampFirst([{ kind: 'bot_reset', payload: { botId } }]));
      }, () => undefined);
    },
  }),

  /** Undoes the bot's latest reset still in force: everything it cleared comes back. */
  undoBotReset: defineCommand({
    args: z.tuple([id]),
    rebuilds: true,
    run(ctx, botId: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const reset = db.get<{ id: string }>(
          `SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND ${rareKind('r')} AND json_extract(r.payload, '$.botId') = ? AND ${VISIBLE('r')}
           ORDER BY r.event_key DESC LIMIT 1`,
          [botId],
        );
        if (!reset) throw new CommandRejectedError('This bot has no reset to undo.');
        appendEvents(ctx, stampFirst([{ kind: 'bot_reset_undone', payload: { reset: reset.id } }]));
      }, () => undefined);
    },
  }),
};
