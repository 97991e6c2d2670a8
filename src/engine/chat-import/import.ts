import type { LogContext } from '../log/context.ts';
import { insertEvents } from '../log/append.ts';
import { projectNewChat } from '../log/rebuild.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import type { EventDraft } from '../log/draft.ts';
import type { Bot } from '../authoring/queries.ts';
import { readSettings } from '../settings/settings.ts';
import { parseUserText } from '../turn/parse.ts';
import { defaultKickoff } from '../kickoff/schema.ts';
import { newChatDrafts } from '../kickoff/commands.ts';
import { MAX_CHAT_FILE, MAX_SEGMENTS, planChatImport } from './plan.ts';
import { z } from 'zod';
import { defineCommand, id } from '../call.ts';
import { getBot } from '../authoring/queries.ts';
import { importTopic } from '../leader/stream.ts';

/** What the player confirmed in the import dialog: the file's text, whose story it is, and its title. */
export interface ChatImport {
  text: string;
  botId: string;
  title: string;
}

/**
 * How far an import has got, for the progress bar of the tab that asked: messages written, then
 * the story's events projected (arranged into the transcript and the drawer).
 */
export interface ImportProgress {
  phase: 'writing' | 'arranging';
  done: number;
  total: number;
}

/** Messages between two progress notices while they are written. */
const PROGRESS_EVERY = 500;

/**
 * An imported SillyTavern chat, as one command: a new chat with the bot (its place and clock from
 * the plain defaults a kickoff starts from), then every message as a turn in order, each reply's
 * swipes as its versions with the chosen one shown, and the file's dates kept on the turns. It is
 * one transaction: a file that fails anywhere writes nothing. Nothing is analysed here; the
 * analysis queue takes only a chat's newest replies, so a long past costs almost no quota.
 */
export function importSillyTavernChat(
  ctx: LogContext,
  bot: Pick<Bot, 'id' | 'name' | 'initialRelationship'>,
  input: ChatImport,
  commandId?: string,
  progress?: (p: ImportProgress) => void,
): string {
  const plan = planChatImport(input.text);
  const title = input.title.trim().slice(0, 120) || `A story with ${bot.name}`;
  const kickoff = { ...defaultKickoff(bot, new Date(plan.firstSentAt ?? ctx.now())), title };
  const { oocMarker } = readSettings(ctx.db);
  const total = plan.messages.length;
  return command(
    ctx,
    commandId,
    (stampFirst) => {
      if (!ctx.db.get('SELECT 1 AS x FROM bots WHERE id = ? AND deleted_ts IS NULL', [bot.id])) throw new CommandRejectedError('That bot no longer exists.');
      const { chatId, drafts } = newChatDrafts(ctx, bot, kickoff);
      // Logged first and projected once at the end: a swipe's marker, appended, would re-project
      // the chat's tail each time (seconds over a long file).
      const [created] = insertEvents(ctx, stampFirst(drafts));
      const dated = (sentAt: number | null) => (sentAt === null ? {} : { sentAt });
      /** A reply's start and its text: the text is caused by its start, as a played reply's is. */
      const reply = (text: string, sentAt: number | null, regenerateOf?: string): EventDraft[] => {
        const turnId = ctx.newId();
        const model = 'imported';
        return [
          { kind: 'assistant_turn_started', chatId, payload: { turnId, speaker: bot.id, model, ...(regenerateOf ? { regenerateOf } : {}) } },
          {
            kind: 'assistant_turn',
            chatId,
            causeDraft: 0,
            payload: { turnId, speaker: bot.id, model, text, truncated: false, reason: null, usage: null, error: null, ...dated(sentAt) },
          },
        ];
      };
      plan.messages.forEach((m, index) => {
        if (m.role === 'user') {
          const segments = parseUserText(m.text, { oocMarker });
          if (segments.length > MAX_SEGMENTS) throw new CommandRejectedError(`Line ${m.line}: a message in more than ${MAX_SEGMENTS} pieces cannot be a turn.`);
          insertEvents(ctx, [{ kind: 'user_turn', chatId, payload: { turnId: ctx.newId(), text: m.text, segments, ...dated(m.sentAt) } }]);
        } else {
          // Each swipe is a version of the first, as a regenerate makes one; then the chosen one is shown.
          const started: string[] = [];
          for (const text of m.versions) started.push(insertEvents(ctx, reply(text, m.sentAt, started.at(-1)))[0]!.id);
          if (m.chosen !== m.versions.length - 1) insertEvents(ctx, [{ kind: 'reply_version_chosen', chatId, payload: { version: started[m.chosen]! } }]);
        }
        if ((index + 1) % PROGRESS_EVERY === 0) progress?.({ phase: 'writing', done: index + 1, total });
      });
      const head = ctx.db.get<{ seq: number }>('SELECT max(seq) AS seq FROM event_rows')!.seq;
      const events = head - created!.seq + 1;
      progress?.({ phase: 'arranging', done: 0, total: events });
      projectNewChat(ctx.db, chatId, Math.max(created!.seq, head - ctx.journalKeep + 1), (done) => progress?.({ phase: 'arranging', done, total: events }));
      progress?.({ phase: 'arranging', done: events, total: events });
      return chatId;
    },
    (first) => first.chatId!,
  );
}

export const chatImportCalls = {
  /**
   * A SillyTavern chat file (its text) as a new chat with a bot, wholly or not at all; answers the
   * chat id. Progress goes out on `importTopic(progressId)`, an id the calling tab made to listen on.
   */
  importChat: defineCommand({
    args: z.tuple([z.object({ text: z.string().max(MAX_CHAT_FILE), botId: id, title: z.string().max(200), progressId: z.string().max(100) })]),
    run(ctx, input): string {
      const bot = getBot(ctx.db, input.botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      if (bot.deleted) throw new CommandRejectedError(`${bot.name} is in Recently deleted: restore it to import a chat with it.`);
      return importSillyTavernChat(ctx, bot, input, ctx.commandId, (progress) => ctx.publish(importTopic(input.progressId), progress));
    },
  }),
};
