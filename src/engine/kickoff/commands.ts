import type { LogContext } from '../log/context.ts';
import { defaultPersona } from '../authoring/personas.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import type { EventDraft } from '../log/draft.ts';
import type { Bot } from '../authoring/queries.ts';
import { defaultKickoff, kickoffPrompt, kickoffSchema, type Kickoff } from './schema.ts';

import { substituteNames } from '../cards/card-to-bot.ts';
import { z } from 'zod';
import { defineCommand, defineQuery, id } from '../call.ts';
import { getBot, getYou } from '../authoring/queries.ts';
import { classifyLogged } from '../llm/classifier.ts';

function activityDraft(chatId: string, entity: string, containerId: string, a: Kickoff['you']): EventDraft {
  return {
    kind: 'activity_change',
    chatId,
    payload: {
      entity,
      containerId,
      slot: a.slot,
      posture: a.posture,
      action: { verb: a.verb, interruptible: a.interruptible, requiredAttention: a.requiredAttention, expectedMinutes: a.expectedMinutes },
      attention: a.attention,
      holding: [],
      status: 'present',
    },
  };
}

/**
 * The drafts every new chat starts with: the chat and its clock, the place, what each of you is
 * doing, the opening scene and the bot's first feelings toward you. Shared by a kickoff and an
 * imported chat.
 */
export function newChatDrafts(ctx: LogContext, bot: Pick<Bot, 'id'> & Partial<Pick<Bot, 'trackedFields'>>, k: Kickoff): { chatId: string; sceneId: string; drafts: EventDraft[] } {
  const chatId = ctx.newId();
  const placeId = ctx.newId();
  const sceneId = ctx.newId();
  const drafts: EventDraft[] = [
    {
      kind: 'chat_created',
      chatId,
      payload: { botId: bot.id, title: k.title, fictionTime: k.fictionTime, weather: k.weather, narrativeAnchor: '' },
    },
    {
      kind: 'container_created',
      chatId,
      payload: {
        containerId: placeId,
        name: k.place.name,
        type: k.place.type,
        properties: { moving: k.place.moving, public: k.place.public, audibleRange: k.place.audibleRange },
        parentId: null,
      },
    },
    activityDraft(chatId, 'you', placeId, k.you),
    activityDraft(chatId, bot.id, placeId, k.bot),
    { kind: 'scene_opened', chatId, payload: { sceneId, containerId: placeId, participants: ['you', bot.id], fictionTime: k.fictionTime } },
    { kind: 'edge_update', chatId, payload: { source: bot.id, target: 'you', affinityDelta: 0, trustDelta: 0, facts: k.edge.facts, lastInteraction: k.fictionTime } },
  ];
  if (k.edge.summary) drafts.push({ kind: 'edge_summary_rewritten', chatId, payload: { source: bot.id, target: 'you', summary: k.edge.summary } });
  // The fields of the player's own the bot keeps: every chat with it starts tracking them.
  for (const field of bot.trackedFields ?? []) drafts.push({ kind: 'field_defined', chatId, payload: { field } });
  // What each of you holds at the start: items, the one record of who has what.
  for (const [holder, held] of [['you', k.you.holding], [bot.id, k.bot.holding]] as const) {
    for (const name of held) drafts.push({ kind: 'item_noted', chatId, payload: { itemId: ctx.newId(), name: name.slice(0, 80), holder, where: 'in hand', state: '' } });
  }
  return { chatId, sceneId, drafts };
}

/** What `{{char}}` and `{{user}}` become in this bot's texts: its card's nickname when set, and your name. */
export function namesFor(ctx: LogContext, bot: Pick<Bot, 'id' | 'name'>): { char: string; user: string } {
  return {
    char: ctx.db.get<{ nickname: string }>('SELECT nickname FROM bot_cards WHERE bot_id = ?', [bot.id])?.nickname || bot.name,
    user: defaultPersona(ctx.db)?.name ?? 'you',
  };
}

/**
 * Everything a new chat starts with, in one command: the chat and its clock, the place, what each
 * of you is doing, the opening scene, the bot's first feelings toward you, and the kickoff prose as
 * the narrator's opening. Returns the new chat's id.
 */
export function startChat(ctx: LogContext, bot: Bot, input: unknown, commandId?: string): string {
  const parsed = kickoffSchema.safeParse(input);
  if (!parsed.success) {
    throw new CommandRejectedError(`The kickoff needs fixing: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const k = parsed.data;
  const { chatId, sceneId, drafts } = newChatDrafts(ctx, bot, k);
  // The opening: the bot's greetings as its versions (the first shown), or its kickoff prose. Names
  // in them ({{char}}, {{user}}) are filled in now: this is the story's text from here on.
  const names = namesFor(ctx, bot);
  const openings = (bot.greetings.length ? bot.greetings : [bot.kickoff]).map((text) => substituteNames(text.trim(), names)).filter(Boolean);
  /** One version of the opening: its start, the narration, and the bot's first memory of it (caused by it, so it goes with its version). */
  const opening = (text: string, regenerateOf?: string): EventDraft[] => {
    const turnId = ctx.newId();
    const model = 'kickoff';
    return [
      { kind: 'assistant_turn_started', chatId, payload: { turnId, speaker: bot.id, model, ...(regenerateOf ? { regenerateOf } : {}) } },
      { kind: 'assistant_turn', chatId, causeDraft: 0, payload: { turnId, speaker: bot.id, model, text, truncated: false, reason: null, usage: null, error: null } },
      // How the story began is the bot's first memory of it: no analysis runs on the opening.
      {
        kind: 'memory_written',
        chatId,
        causeDraft: 1,
        payload: {
          memoryId: ctx.newId(),
          ownerId: bot.id,
          sceneId,
          summary: text.slice(0, 4_000),
          witness: { you: true, host: true, guest: false },
          fictionTime: k.fictionTime,
          source: 'kickoff',
          reliability: 1,
          significance: 2,
          pinned: false,
          autoPinned: false,
        },
      },
    ];
  };
  return command(
    ctx,
    commandId,
    (stampFirst) => {
      if (!ctx.db.get('SELECT 1 AS x FROM bots WHERE id = ?', [bot.id])) throw new CommandRejectedError('That bot no longer exists.');
      appendEvents(ctx, stampFirst(drafts));
      // Each further greeting is a version of the first (as a regenerate makes one); the first is shown.
      let first: string | undefined;
      let previous: string | undefined;
      for (const text of openings) {
        const [started] = appendEvents(ctx, opening(text, previous));
        first ??= started!.id;
        previous = started!.id;
      }
      if (openings.length > 1) appendEvents(ctx, [{ kind: 'reply_version_chosen', chatId, payload: { version: first! } }]);
      return chatId;
    },
    (first) => first.chatId!,
  );
}

export const kickoffCalls = {
  /** Starts a chat from a confirmed kickoff; answers the chat id. */
  startChat: defineCommand({
    args: z.tuple([id, z.unknown()]),
    run(ctx, botId, kickoff): string {
      const bot = getBot(ctx.db, botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      if (bot.deleted) throw new CommandRejectedError(`${bot.name} is in Recently deleted: restore it to start a chat.`);
      return startChat(ctx, bot, kickoff, ctx.commandId);
    },
  }),
  /** Asks the classifier to turn the bot's kickoff into a place, activities, a time and first feelings. */
  proposeKickoff: defineQuery({
    args: z.tuple([id]),
    records: true,
    async run(ctx, botId): Promise<{ proposal: Kickoff; fromModel: boolean }> {
      const bot = getBot(ctx.db, botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      const fallback = defaultKickoff(bot, new Date(ctx.now()));
      const result = await classifyLogged(ctx, ctx.llm, kickoffSchema, kickoffPrompt(bot, getYou(ctx.db)), { task: 'kickoff', fallback });
      return { proposal: result.value, fromModel: result.ok };
    },
  }),
};
