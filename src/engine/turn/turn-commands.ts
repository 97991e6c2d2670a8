import type { Db } from '../db/port.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import type { LoggedEvent } from '../events/define.ts';
import type { EventDraft } from '../log/draft.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { idOfSeq, replyVersions, versionOfReply } from '../log/visibility.ts';
import { readSettings } from '../settings/settings.ts';
import { hostResetSeq } from '../queries/chats.ts';
import type { NarrationResult } from './narrate.ts';
import { reportForTheLog, type PromptReport } from './prompt-report.ts';
import { inCharacterText, parseUserText } from './parse.ts';
import { followedByVersion, followedReply, hasContinuation } from './followed-reply.ts';
import type { EntityRef } from '../events/fields.ts';
import { speakerOf } from './speaker.ts';
import { canSpeak, chooseSpeaker } from './reply-order.ts';
import { z } from 'zod';
import { defineCommand, id } from '../call.ts';

export interface StartedTurn {
  chatId: string;
  turnId: string;
  startedSeq: number;
  speaker: EntityRef;
  model: string;
  /** What the narrator may see of the user's new turn; null for "continue" and regenerate. */
  inCharacter: string | null;
  /** For "Continue": the reply so far, which the narrator carries on from. */
  prefix?: string;
}

/** The transcript row `t` is being written by this device: the latest start or continuation of its reply is this device's. */
const WRITTEN_HERE = `(SELECT e.device_id FROM events e WHERE e.chat_id = t.chat_id AND e.kind IN ('assistant_turn_started', 'reply_continued')
  AND json_extract(e.payload, '$.turnId') = t.turn_id ORDER BY e.seq DESC LIMIT 1) = (SELECT id FROM database_identity LIMIT 1)`;

interface StreamingRow {
  turn_id: string;
  chat_id: string;
  seq: number;
  speaker: string;
  model: string | null;
  text: string;
}

/** Starting, checkpointing and finishing replies; recovering ones a crash interrupted; regenerating. */
export function turnCommands(ctx: LogContext) {
  const db: Db = ctx.db;

  const streamingIn = (chatId: string) =>
    db.get<StreamingRow>("SELECT turn_id, chat_id, seq, speaker, model, text FROM transcript WHERE chat_id = ? AND status = 'streaming'", [chatId]);

  /** One reply at a time per story; Stop ends one written here, not one another device is writing. */
  function refuseWhileStreaming(chatId: string): void {
    const row = streamingIn(chatId);
    if (!row) return;
    if (!db.get(`SELECT 1 AS x FROM transcript t WHERE t.chat_id = ? AND t.turn_key = id_key(?) AND ${WRITTEN_HERE}`, [chatId, row.turn_id])) {
      throw new CommandRejectedError('A reply to this story is being written on another device: it shows here when it is done.');
    }
    throw new CommandRejectedError('A reply is still being written. Wait for it or press Stop.');
  }

  function hostOf(chatId: string): string {
    const chat = db.get<{ bot_id: string }>('SELECT bot_id FROM chats WHERE id = ?', [chatId]);
    if (!chat) throw new CommandRejectedError('That chat does not exist.');
    return chat.bot_id;
  }

  /** The latest turn is from before the bot was reset: the story starts again from the kickoff, not from it. */
  function refuseBeforeReset(chatId: string, latestSeq: number): void {
    if (latestSeq < hostResetSeq(db, chatId)) {
      throw new CommandRejectedError('That reply is from before the reset. Send a message to start again from the kickoff.');
    }
  }

  /** The opening narration is the author's kickoff (its versions are the bot's greetings): not the model's to redo or extend. */
  function refuseOpening(model: string | null): void {
    if (model === 'kickoff') throw new CommandRejectedError('The opening is the story’s kickoff, written by its author. Write your first line to begin.');
  }

  function startedFrom(chatId: string, startedSeq: number, inCharacter: string | null): StartedTurn {
    const row = db.get<{ payload: string }>('SELECT payload FROM events WHERE seq = ?', [startedSeq])!;
    const p = JSON.parse(row.payload) as { turnId: string; speaker: string; model: string };
    return { chatId, turnId: p.turnId, startedSeq, speaker: p.speaker, model: p.model, inCharacter };
  }

  /** Which version of the chat's latest reply is shown, of how many. */
  function latestReplyVersion(chatId: string): { number: number; of: number } | undefined {
    const last = db.get<{ seq: number; role: string }>('SELECT seq, role FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1', [chatId]);
    return last?.role === 'assistant' ? versionOfReply(db, last.seq) : undefined;
  }

  /** What a re-sent begin or regenerate answers: the turn its first event started. */
  function startedBy(first: LoggedEvent): StartedTurn {
    if (first.kind === 'assistant_turn_started') return startedFrom(first.chatId!, first.seq, null);
    // Read forward from the turn by seq (`+chat_id`: the chat's index would read the whole chat).
    const started = db.get<{ seq: number }>("SELECT seq FROM events WHERE +chat_id = ? AND kind = 'assistant_turn_started' AND seq > ? ORDER BY seq LIMIT 1", [first.chatId, first.seq]);
    const segments = (first.payload as { segments: Parameters<typeof inCharacterText>[0] }).segments;
    return startedFrom(first.chatId!, started!.seq, inCharacterText(segments));
  }

  return {
    /**
     * The user's turn (if they wrote anything) and the start of the reply, in one command. The reply
     * is `asked`'s when the player gave that bot the turn, else whoever the chat's reply order picks.
     */
    beginTurn(chatId: string, text: string, commandId?: string, asked?: string): StartedTurn {
      return command(ctx, commandId, (stampFirst) => {
        hostOf(chatId);
        refuseWhileStreaming(chatId);
        if (asked !== undefined && !canSpeak(db, chatId, asked)) throw new CommandRejectedError('Only someone present in the scene can be given the turn.');
        const settings = readSettings(db);
        const trimmed = text.trim();
        const segments = trimmed ? parseUserText(trimmed, { oocMarker: settings.oocMarker }) : [];
        const speaker = asked ?? chooseSpeaker(db, chatId, trimmed ? inCharacterText(segments) : '');
        const turnId = ctx.newId();
        // The line follows the reply the player read; the reply answers the line (or follows that reply).
        const follows = followedReply(db, chatId);
        const drafts: EventDraft[] = [
          ...(trimmed ? [{ kind: 'user_turn' as const, chatId, payload: { turnId: ctx.newId(), text: trimmed, segments }, causeId: follows }] : []),
          { kind: 'assistant_turn_started' as const, chatId, payload: { turnId, speaker, model: settings.narrativeModel }, ...(trimmed ? { causeDraft: 0 } : { causeId: follows }) },
        ];
        const events = appendEvents(ctx, stampFirst(drafts));
        return startedFrom(chatId, events.at(-1)!.seq, trimmed ? inCharacterText(segments) : null);
      }, startedBy);
    },

    checkpoint(chatId: string, turnId: string, text: string, thinking = ''): void {
      db.run(
        `INSERT INTO stream_checkpoints (turn_id, chat_id, text, thinking, updated_ts) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (chat_id, turn_id) DO UPDATE SET text = excluded.text, thinking = excluded.thinking, updated_ts = excluded.updated_ts`,
        [turnId, chatId, text, thinking || null, ctx.now()],
      );
    },

    checkpointed(chatId: string, turnId: string): string | undefined {
      return db.get<{ text: string }>('SELECT text FROM stream_checkpoints WHERE chat_id = ? AND turn_id = ?', [chatId, turnId])?.text;
    },

    /** Writes the reply; a turn already finished (a re-sent finish) is left as it is. */
    finishTurn(turn: Pick<StartedTurn, 'chatId' | 'turnId' | 'startedSeq' | 'speaker' | 'model'>, result: NarrationResult, prompt?: PromptReport): boolean {
      return db.transaction(() => {
        const row = db.get<{ status: string }>('SELECT status FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [turn.chatId, turn.turnId]);
        if (!row || row.status !== 'streaming') return false;
        const forTheLog = prompt ? reportForTheLog(db, turn.chatId, prompt) : undefined;
        appendEvents(ctx, [
          ...(forTheLog?.texts ?? []).map((payload) => ({ kind: 'prompt_text_kept' as const, chatId: turn.chatId, payload })),
          {
            kind: 'assistant_turn',
            chatId: turn.chatId,
            causeId: idOfSeq(db, turn.startedSeq) ?? null,
            payload: {
              turnId: turn.turnId,
              // With guests present the narrator voices several: the reply is whoever it names first.
              // A reply given to a guest stays theirs; the host's goes to whoever it names first
              // when the narrator wrote the scene for everyone.
              speaker: turn.speaker === hostOf(turn.chatId) ? speakerOf(db, turn.chatId, result.text, turn.speaker) : turn.speaker,
              model: turn.model,
              text: result.text,
              truncated: result.truncated,
              reason: result.reason,
              usage: result.usage,
              error: result.error,
              ...(result.thinking ? { thinking: result.thinking } : {}),
              ...(forTheLog ? { prompt: { ...forTheLog.report, ...(result.stoppedAt ? { stoppedAt: result.stoppedAt } : {}), ...(result.trimmedLabel ? { trimmedLabel: result.trimmedLabel } : {}) } } : {}),
            },
          },
        ]);
        db.run('DELETE FROM stream_checkpoints WHERE chat_id = ? AND turn_id = ?', [turn.chatId, turn.turnId]);
        return true;
      });
    },

    /**
     * Replies left streaming by a leader of this device that died: committed with their
     * checkpointed text, truncated. A reply another device is writing (its start came through
     * sync, its end is on the way) is left alone: finishing it here as interrupted would replace
     * its text on every device.
     */
    recoverInterrupted(): string[] {
      return db.transaction(() => {
        const rows = db.all<StreamingRow>(
          `SELECT t.turn_id, t.chat_id, t.seq, t.speaker, t.model, t.text FROM transcript t WHERE t.status = 'streaming' AND ${WRITTEN_HERE}`,
        );
        for (const row of rows) {
          // A continued reply keeps its earlier text even if no checkpoint was written yet.
          const saved = db.get<{ text: string; thinking: string | null }>('SELECT text, thinking FROM stream_checkpoints WHERE chat_id = ? AND turn_id = ?', [row.chat_id, row.turn_id]);
          const text = saved?.text ?? row.text;
          const thinking = saved?.thinking?.trim() ? { thinking: { text: saved.thinking.trim(), ms: null } } : {};
          appendEvents(ctx, [
            {
              kind: 'assistant_turn',
              chatId: row.chat_id,
              causeId: idOfSeq(db, row.seq) ?? null,
              payload: { turnId: row.turn_id, speaker: row.speaker, model: row.model ?? '', text, truncated: true, reason: 'interrupted', usage: null, error: null, ...thinking },
            },
          ]);
          db.run('DELETE FROM stream_checkpoints WHERE chat_id = ? AND turn_id = ?', [row.chat_id, row.turn_id]);
        }
        // Checkpoints whose turn was rewound away or already finished are stale.
        db.run("DELETE FROM stream_checkpoints WHERE (chat_id, turn_id) NOT IN (SELECT chat_id, turn_id FROM transcript WHERE status = 'streaming')");
        return rows.map((r) => r.turn_id);
      });
    },

    streamingTurn(chatId: string): StartedTurn | undefined {
      const row = streamingIn(chatId);
      return row && { chatId, turnId: row.turn_id, startedSeq: row.seq, speaker: row.speaker, model: row.model ?? '', inCharacter: null };
    },

    /**
     * Shows version `number` (from 1, oldest first) of the chat's latest reply, or of the reply at
     * `at` where the story forks (two of its versions each carry what followed them): the story
     * state, and at a fork the turns after it, follow the version. Choosing the version already
     * shown writes nothing.
     */
    chooseVersion(chatId: string, number: number, commandId?: string, at?: number): { number: number; of: number } {
      const latest = () => db.get<{ seq: number; role: string }>('SELECT seq, role FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1', [chatId]);
      const shownAt = (seq: number) => {
        const versions = replyVersions(db, idOfSeq(db, seq) ?? '');
        const index = versions.findIndex((v) => v.shown);
        return index < 0 ? undefined : { number: index + 1, of: versions.length };
      };
      const shown = () => (at === undefined ? latestReplyVersion(chatId) : shownAt(at)) ?? { number, of: 0 };
      return command(ctx, commandId, (stampFirst) => {
        hostOf(chatId);
        refuseWhileStreaming(chatId);
        const last = latest();
        const reply = at === undefined || at === last?.seq ? last : db.get<{ seq: number; role: string }>('SELECT seq, role FROM transcript WHERE chat_id = ? AND seq = ? AND hidden = 0', [chatId, at]);
        if (reply?.role !== 'assistant') throw new CommandRejectedError('There is no reply to choose a version of.');
        refuseBeforeReset(chatId, reply.seq);
        const versions = replyVersions(db, idOfSeq(db, reply.seq)!);
        if (reply !== last && versions.filter((v) => hasContinuation(db, v.id)).length < 2) {
          throw new CommandRejectedError('Only the latest reply, or a reply where the story goes two ways, can show another version.');
        }
        const target = versions[number - 1];
        if (!target) throw new CommandRejectedError(`This reply has ${versions.length} version${versions.length === 1 ? '' : 's'}; there is no version ${number}.`);
        if (!target.shown) appendEvents(ctx, stampFirst([{ kind: 'reply_version_chosen', chatId, payload: { version: target.id } }]));
        return shown();
      }, shown);
    },

    /**
     * "Continue": the latest reply streams again from its last word. Its analysis is redone once
     * the longer reply is written.
     */
    continueReply(chatId: string, commandId?: string): StartedTurn {
      return command(ctx, commandId, (stampFirst) => {
        hostOf(chatId);
        refuseWhileStreaming(chatId);
        const last = db.get<{ seq: number; role: string; turn_id: string; text: string; finished_seq: number | null; speaker: string; model: string | null }>(
          'SELECT seq, role, turn_id, text, finished_seq, speaker, model FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1',
          [chatId],
        );
        if (last?.role !== 'assistant') throw new CommandRejectedError('There is no reply to continue.');
        refuseBeforeReset(chatId, last.seq);
        refuseOpening(last.model);
        if (!last.text.trim()) throw new CommandRejectedError('This reply is empty: regenerate it instead.');
        const analysisOf = last.finished_seq !== null ? idOfSeq(db, last.finished_seq) : undefined;
        appendEvents(ctx, stampFirst([
          { kind: 'reply_continued', chatId, causeId: idOfSeq(db, last.seq) ?? null, payload: { turnId: last.turn_id, ...(analysisOf ? { analysisOf } : {}) } },
        ]));
        return { chatId, turnId: last.turn_id, startedSeq: last.seq, speaker: last.speaker, model: last.model ?? readSettings(db).narrativeModel, inCharacter: null, prefix: last.text };
      }, (first) => {
        const row = db.get<{ seq: number; speaker: string; model: string | null; text: string }>('SELECT seq, speaker, model, text FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [
          chatId,
          (first.payload as { turnId: string }).turnId,
        ])!;
        return { chatId, turnId: (first.payload as { turnId: string }).turnId, startedSeq: row.seq, speaker: row.speaker, model: row.model ?? '', inCharacter: null, prefix: row.text };
      });
    },

    /** A new reply in place of the last one, which stays in the log as an earlier version. */
    regenerate(chatId: string, commandId?: string): StartedTurn {
      return command(ctx, commandId, (stampFirst) => {
        const host = hostOf(chatId);
        refuseWhileStreaming(chatId);
        const last = db.get<{ seq: number; role: string; model: string | null; speaker: string }>(
          'SELECT seq, role, model, speaker FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1',
          [chatId],
        );
        // A new version of a guest's reply is the guest's again.
        const speaker = last?.role === 'assistant' && canSpeak(db, chatId, last.speaker) ? last.speaker : host;
        if (!last) throw new CommandRejectedError('There is no reply to regenerate yet.');
        refuseBeforeReset(chatId, last.seq);
        if (last.role === 'assistant') refuseOpening(last.model);
        const settings = readSettings(db);
        // The transcript row of a reply carries its assistant_turn_started's seq.
        const regenerateOf = last.role === 'assistant' ? idOfSeq(db, last.seq) : undefined;
        const [started] = appendEvents(ctx, stampFirst([
          {
            kind: 'assistant_turn_started',
            chatId,
            payload: { turnId: ctx.newId(), speaker, model: settings.narrativeModel, ...(regenerateOf ? { regenerateOf } : {}) },
            causeId: followedByVersion(db, last.seq, last.role),
          },
        ]));
        return startedFrom(chatId, started!.seq, null);
      }, startedBy);
    },
  };
}

export const versionCalls = {
  /** ‹ 2/3 ›: shows another version of the latest reply, or of a reply where the story forks (`at`, its seq); the story state follows it. */
  chooseVersion: defineCommand({
    args: z.tuple([id, z.number().int().min(1), z.number().int().min(1).nullable().optional()]),
    rebuilds: true,
    run: (ctx, chatId, number, at) => turnCommands(ctx).chooseVersion(chatId, number, ctx.commandId, at ?? undefined),
  }),
};
