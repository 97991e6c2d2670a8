import type { Db } from '../db/port.ts';
import { addFictionMinutes, fictionMinutesBetween, FICTION_TIME_PATTERN, minutesToNextMorning } from '../fiction-time.ts';
import { castOf } from '../analysis/cast.ts';
import { nextScene } from '../analysis/next-scene.ts';
import { z } from 'zod';
import { defineCommand, id } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import type { EventDraft } from '../log/draft.ts';
import { CommandRejectedError, EventValidationError } from '../log/errors.ts';
import { currentValue, latestEdit } from '../queries/state-edits.ts';
import { setAgainLater } from '../queries/value-history.ts';
import type { EditTarget } from '../events/edit-marks.ts';
import { changeKey } from '../events/define.ts';
import { makeRoomForPin, PIN_CAP } from '../memory/pins.ts';
import { samplerOverrides } from '../settings/sampler.ts';
import { THREAD_KINDS, THREAD_TEXT, type ThreadKind } from '../state/threads.ts';
import { ITEM_NAME, ITEM_TEXT } from '../state/items.ts';
import { chatFields, checkFieldValue, fieldDef } from '../state/fields.ts';
import { languageTag } from '../events/fields.ts';
import { getBot } from '../authoring/queries.ts';

const nothing = () => undefined;

/** The chat's story clock, or undefined when there is no such chat. */
const clockOf = (db: Db, chatId: string) => db.get<{ fiction_time: string }>('SELECT fiction_time FROM chat_state WHERE chat_id = ?', [chatId])?.fiction_time;

/** What the chat drawer's buttons do: pin a memory, close the scene, set a value, move the clock, invite a guest. */
export const storyCalls = {
  /**
   * The user pins or unpins a memory. A user's pin is never evicted; to make room at the cap the
   * oldest automatic pin gives way, and when all pins are the user's the pin is refused.
   */
  pinMemory: defineCommand({
    args: z.tuple([id, id, z.boolean()]),
    run(ctx, chatId: string, memoryId: string, pinned: boolean): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const memory = db.get<{ owner_id: string; pinned: number; auto_pinned: number }>(
          'SELECT owner_id, pinned, auto_pinned FROM memories WHERE memory_key = id_key(?) AND chat_id = ?',
          [memoryId, chatId],
        );
        if (!memory) throw new CommandRejectedError('That memory is no longer there.');
        const drafts: EventDraft[] = [];
        if (pinned && !(memory.pinned === 1 && memory.auto_pinned === 0)) {
          // Re-pinning an automatic pin by hand makes it the user's; it takes no new room.
          if (memory.pinned === 0) {
            const room = makeRoomForPin(db, chatId, memory.owner_id);
            if (!room) throw new CommandRejectedError(`All ${PIN_CAP} pins are yours already. Unpin one first.`);
            drafts.push(...room);
          }
          drafts.push({ kind: 'memory_pin_changed', chatId, payload: { memoryId, pinned: true, auto: false } });
        } else if (!pinned && memory.pinned === 1) {
          drafts.push({ kind: 'memory_pin_changed', chatId, payload: { memoryId, pinned: false, auto: false } });
        }
        if (drafts.length) appendEvents(ctx, stampFirst(drafts));
      }, nothing);
    },
  }),

  /** Ends the scene by hand (the drawer's button); the next one opens at once in the same place. */
  closeScene: defineCommand({
    args: z.tuple([id]),
    run(ctx, chatId: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const state = db.get<{ fiction_time: string; active_scene_id: string | null }>('SELECT fiction_time, active_scene_id FROM chat_state WHERE chat_id = ?', [chatId]);
        const cast = castOf(db, chatId);
        if (!state || !cast) throw new CommandRejectedError('That chat does not exist.');
        if (!state.active_scene_id) throw new CommandRejectedError('There is no open scene to close.');
        appendEvents(ctx, stampFirst(nextScene(ctx, cast, { reason: 'manual', significance: 0, fictionTime: state.fiction_time })));
      }, nothing);
    },
  }),

  /**
   * A drawer edit: one value set by hand (`target` and `field` as manual_edit lists them). The
   * prior value goes in the event with the new one. A value that breaks its field's rule is
   * refused with that rule, and nothing is written.
   */
  editState: defineCommand({
    args: z.tuple([id, z.custom<EditTarget>((v) => typeof v === 'object' && v !== null), z.string().max(40), z.unknown()]),
    run(ctx, chatId: string, target: EditTarget, field: string, value: unknown): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        if (!db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat does not exist.');
        const prior = currentValue(db, chatId, target, field);
        if (prior === undefined) throw new CommandRejectedError('That is no longer in the story.');
        try {
          appendEvents(ctx, stampFirst([{ kind: 'manual_edit', chatId, payload: { target, field, prior, value } }]));
        } catch (error) {
          if (error instanceof EventValidationError) throw new CommandRejectedError(error.issues.map((i) => i.message).join('; '));
          throw error;
        }
      }, nothing);
    },
  }),

  /** Takes back the chat's latest drawer edit still in force. */
  undoStateEdit: defineCommand({
    args: z.tuple([id]),
    rebuilds: true,
    run(ctx, chatId: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const edit = latestEdit(db, chatId);
        if (!edit) throw new CommandRejectedError('There is no edit to undo in this chat.');
        appendEvents(ctx, stampFirst([{ kind: 'manual_edit_undone', chatId, payload: { edit: edit.id } }]));
      }, nothing);
    },
  }),

  /**
   * "Undo this change": one change of an earlier event taken back, without rewinding (issue 33,
   * part 1). Answers what the player should be told: whether a later change set the value again, so
   * that one still stands.
   */
  undoChange: defineCommand({
    args: z.tuple([id, id, z.string().min(1).max(1_000)]),
    rebuilds: true,
    run(ctx, chatId: string, eventId: string, change: string): { laterValueStands: boolean } {
      const { db } = ctx;
      const row = db
        .all<{ seq: number; target: string; field: string; part: string; undone: number }>(
          'SELECT v.seq, v.target, v.field, v.part, v.undone FROM value_changes v JOIN event_rows e ON e.seq = v.seq WHERE e.id = id_key(?) AND v.chat_id = ?',
          [eventId, chatId],
        )
        .find((r) => changeKey({ target: r.target, field: r.field, part: r.part || undefined }) === change);
      const answer = () => ({ laterValueStands: row ? setAgainLater(db, chatId, row.target, row.field, row.seq) : false });
      return command(ctx, ctx.commandId, (stampFirst) => {
        if (!row) throw new CommandRejectedError('That change is no longer in the story.');
        if (row.undone) throw new CommandRejectedError('That change was taken back already.');
        appendEvents(ctx, stampFirst([{ kind: 'change_undone', chatId, payload: { event: eventId, change } }]));
        return answer();
      }, answer);
    },
  }),

  /**
   * A guest arrives (`present`) or leaves: another bot joins the chat's scene, where the host
   * is, or goes away. Only those present witness a turn, so a guest who left learns nothing of
   * what is said until they are back. The host cannot leave its own chat this way.
   */
  setGuest: defineCommand({
    args: z.tuple([id, id, z.boolean()]),
    run(ctx, chatId: string, botId: string, present: boolean): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const cast = castOf(db, chatId);
        if (!cast) throw new CommandRejectedError('That chat does not exist.');
        if (botId === cast.hostId) throw new CommandRejectedError('The host is always in their own chat.');
        const bot = db.get<{ name: string; deleted_ts: number | null }>('SELECT name, deleted_ts FROM bots WHERE id = ?', [botId]);
        if (!bot || bot.deleted_ts !== null) throw new CommandRejectedError('That bot is not here to invite.');
        const member = cast.members.find((m) => m.ref === botId);
        if (member && member.present === present) return;
        if (!member && !present) throw new CommandRejectedError(`${bot.name} is not in this chat.`);
        const host = db.get<{ container_id: string | null }>('SELECT container_id FROM activity WHERE chat_id = ? AND entity = ?', [chatId, cast.hostId]);
        appendEvents(
          ctx,
          stampFirst([
            {
              kind: 'activity_change',
              chatId,
              payload: {
                entity: botId,
                containerId: present ? (host?.container_id ?? null) : null,
                slot: '',
                posture: present ? 'standing' : '',
                action: { verb: present ? 'arriving' : 'away', interruptible: true, requiredAttention: 'low', expectedMinutes: null },
                attention: '',
                holding: [],
                status: present ? 'present' : 'away',
              },
            },
          ]),
        );
      }, nothing);
    },
  }),

  /** The chat's own sampling: the knobs given win over the settings; none given follows them again. */
  setChatSampler: defineCommand({
    args: z.tuple([id, z.unknown()]),
    run(ctx, chatId: string, sampler: unknown): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        if (!db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat does not exist.');
        const checked = samplerOverrides.safeParse(sampler);
        if (!checked.success) throw new CommandRejectedError(checked.error.issues.map((i) => `${i.path.join('.') || 'sampling'}: ${i.message}`).join('; '));
        appendEvents(ctx, stampFirst([{ kind: 'chat_sampler_set', chatId, payload: { sampler: checked.data } }]));
      }, nothing);
    },
  }),

  /** The language this chat's story is played in (a BCP 47 tag), or null to follow the bot's default, else the story. */
  setChatLanguage: defineCommand({
    args: z.tuple([id, languageTag.nullable()]),
    run(ctx, chatId: string, language: string | null): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        if (!db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat does not exist.');
        appendEvents(ctx, stampFirst([{ kind: 'chat_language_set', chatId, payload: { language } }]));
      }, nothing);
    },
  }),

  /**
   * The picture behind this chat's story: a stored picture's hash, 'none', or 'host' (the host
   * bot's own). Choosing what is already in force writes nothing.
   */
  setChatBackground: defineCommand({
    args: z.tuple([id, z.union([z.literal('none'), z.literal('host'), z.string().regex(/^[0-9a-f]{64}$/, 'must name a stored picture')])]),
    run(ctx, chatId: string, background: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const chat = db.get<{ background: string | null }>('SELECT background FROM chats WHERE id = ?', [chatId]);
        if (!chat) throw new CommandRejectedError('That chat does not exist.');
        if (background !== 'none' && background !== 'host' && !db.get('SELECT 1 AS x FROM images WHERE hash = ?', [background])) {
          throw new CommandRejectedError('That picture is not stored here: choose it again.');
        }
        if ((chat.background ?? 'host') === background) return;
        appendEvents(ctx, stampFirst([{ kind: 'chat_background_set', chatId, payload: { background } }]));
      }, nothing);
    },
  }),

  /**
   * "Skip ahead": the story's clock jumps to the next morning, by some hours or days, or to a
   * later date and time; a `clock_advanced` like any other, so it follows rewind, branch and sync.
   * A time before the clock is refused: setting it back is a correction (edit the time).
   */
  skipAhead: defineCommand({
    args: z.tuple([
      id,
      z.union([
        z.object({ nextMorning: z.literal(true) }),
        z.object({ hours: z.number().int().min(1).max(24 * 365) }),
        z.object({ days: z.number().int().min(1).max(3650) }),
        z.object({ to: z.string().regex(FICTION_TIME_PATTERN, 'must be a date and time') }),
      ]),
    ]),
    run(ctx, chatId: string, to: { nextMorning: true } | { hours: number } | { days: number } | { to: string }): string {
      const { db } = ctx;
      const clock = () => clockOf(db, chatId);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const current = clock();
          if (current === undefined) throw new CommandRejectedError('That chat does not exist.');
          const minutes =
            'nextMorning' in to ? minutesToNextMorning(current) : 'hours' in to ? to.hours * 60 : 'days' in to ? to.days * 24 * 60 : Math.round(fictionMinutesBetween(current, to.to));
          if (!(minutes > 0)) throw new CommandRejectedError('That is not after the story’s clock. To set the clock back, edit the time.');
          if (minutes > 60 * 24 * 365 * 10) throw new CommandRejectedError('Skip ahead by ten years at the most.');
          const fictionTime = addFictionMinutes(current, minutes);
          appendEvents(ctx, stampFirst([{ kind: 'clock_advanced', chatId, payload: { minutes, fictionTime } }]));
          return fictionTime;
        },
        () => clock() ?? '',
      );
    },
  }),

  /** "Add a thread": one the player wants the story to remember (a promise, a quest, a secret, a question). */
  addThread: defineCommand({
    args: z.tuple([id, z.enum(THREAD_KINDS), z.string().max(2_000)]),
    run(ctx, chatId: string, kind: ThreadKind, text: string): string {
      const { db } = ctx;
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const now = clockOf(db, chatId);
          if (now === undefined) throw new CommandRejectedError('That chat does not exist.');
          const words = text.replace(/\s+/g, ' ').trim();
          if (!words) throw new CommandRejectedError('Say what the thread is, in a sentence.');
          if (words.length > THREAD_TEXT) throw new CommandRejectedError(`Keep a thread to ${THREAD_TEXT} characters.`);
          const threadId = ctx.newId();
          appendEvents(ctx, stampFirst([{ kind: 'thread_opened', chatId, payload: { threadId, kind, text: words, fictionTime: now } }]));
          return threadId;
        },
        (first) => (first.payload as { threadId: string }).threadId,
      );
    },
  }),

  /**
   * The player adds an item in the drawer ("Add an item"): its name, who has it (you, a bot of the
   * chat, or nobody) and where it is. Answers its id.
   */
  addItem: defineCommand({
    args: z.tuple([id, z.string().max(2_000), z.string().max(100), z.string().max(2_000)]),
    run(ctx, chatId: string, name: string, holder: string, where: string): string {
      const { db } = ctx;
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const cast = castOf(db, chatId);
          if (!cast) throw new CommandRejectedError('That chat does not exist.');
          const words = name.replace(/\s+/g, ' ').trim();
          if (!words) throw new CommandRejectedError('Name the item.');
          if (words.length > ITEM_NAME) throw new CommandRejectedError(`Keep an item’s name to ${ITEM_NAME} characters.`);
          if (holder !== '' && !cast.members.some((m) => m.ref === holder)) throw new CommandRejectedError('Whoever holds it must be in this chat, or nobody.');
          const place = where.replace(/\s+/g, ' ').trim();
          if (place.length > ITEM_TEXT) throw new CommandRejectedError(`Keep where it is to ${ITEM_TEXT} characters.`);
          const itemId = ctx.newId();
          appendEvents(ctx, stampFirst([{ kind: 'item_noted', chatId, payload: { itemId, name: words, holder, where: place, state: '' } }]));
          return itemId;
        },
        (first) => (first.payload as { itemId: string }).itemId,
      );
    },
  }),

  /**
   * A field of the player's own added to the chat ("Add a field"): its name, what it means, its type
   * (with its range or choices), per character or for the chat. Answers its id; a malformed one is
   * refused with the rule it breaks.
   */
  addField: defineCommand({
    args: z.tuple([id, z.unknown()]),
    run(ctx, chatId: string, given: unknown): string {
      const { db } = ctx;
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (!db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) throw new CommandRejectedError('That chat does not exist.');
          const field = fieldDef.safeParse({ ...(typeof given === 'object' && given !== null ? given : {}), id: ctx.newId() });
          if (!field.success) throw new CommandRejectedError(field.error.issues.map((i) => `${i.path.join('.') || 'field'}: ${i.message}`).join('; '));
          if (chatFields(db, chatId).some((f) => f.def.name.toLowerCase() === field.data.name.toLowerCase())) throw new CommandRejectedError(`There is a field named ${field.data.name} already.`);
          appendEvents(ctx, stampFirst([{ kind: 'field_defined', chatId, payload: { field: field.data } }]));
          return field.data.id;
        },
        (first) => (first.payload as { field: { id: string } }).field.id,
      );
    },
  }),

  /** A field taken out of the chat: no longer shown, asked for or told. */
  removeField: defineCommand({
    args: z.tuple([id, id]),
    run(ctx, chatId: string, fieldId: string): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        if (!chatFields(ctx.db, chatId).some((f) => f.def.id === fieldId)) throw new CommandRejectedError('That field is no longer in this chat.');
        appendEvents(ctx, stampFirst([{ kind: 'field_removed', chatId, payload: { fieldId } }]));
      }, nothing);
    },
  }),

  /** A field's value set by hand: checked against its field (a number in its range, one of its choices), refused with why. */
  setFieldValue: defineCommand({
    args: z.tuple([id, id, z.string().max(100), z.unknown()]),
    run(ctx, chatId: string, fieldId: string, owner: string, value: unknown): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const field = chatFields(ctx.db, chatId).find((f) => f.def.id === fieldId);
        if (!field) throw new CommandRejectedError('That field is no longer in this chat.');
        if ((field.def.per === 'chat') !== (owner === '')) throw new CommandRejectedError(field.def.per === 'chat' ? `${field.def.name} is kept for the chat, not for one character.` : `Say whose ${field.def.name} this is.`);
        if (owner !== '' && !castOf(ctx.db, chatId)?.members.some((m) => m.ref === owner)) throw new CommandRejectedError('That character is not in this chat.');
        const checked = checkFieldValue(field.def, value);
        if (!checked.ok) throw new CommandRejectedError(`${checked.reason}.`);
        appendEvents(ctx, stampFirst([{ kind: 'field_set', chatId, payload: { fieldId, owner, value: checked.value } }]));
      }, nothing);
    },
  }),

  /** The chat's fields saved on its host bot: every new chat with it starts with them, and they go with its card. */
  saveFieldsOnBot: defineCommand({
    args: z.tuple([id]),
    run(ctx, chatId: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const host = db.get<{ bot_id: string }>('SELECT bot_id FROM chats WHERE id = ?', [chatId]);
        const bot = host && getBot(db, host.bot_id);
        if (!bot) throw new CommandRejectedError('That chat’s bot no longer exists.');
        const { id: botId, updatedSeq: _u, wasReset: _w, deleted: _d, avatar, background, pronouns, greetings, trackedFields: _t, language, ...rest } = bot;
        const trackedFields = chatFields(db, chatId).map((f) => f.def);
        appendEvents(
          ctx,
          stampFirst([
            {
              kind: 'bot_authored',
              payload: { ...rest, botId, pronouns, ...(avatar ? { avatar } : {}), ...(background ? { background } : {}), ...(greetings.length ? { greetings } : {}), ...(trackedFields.length ? { trackedFields } : {}), ...(language ? { language } : {}) },
            },
          ]),
        );
      }, nothing);
    },
  }),

  /** Moves the chat's clock forward by hand ("later that evening"). */
  advanceClock: defineCommand({
    args: z.tuple([id, z.number()]),
    run(ctx, chatId: string, minutes: number): string {
      const { db } = ctx;
      const clock = () => clockOf(db, chatId);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (!Number.isInteger(minutes) || minutes <= 0 || minutes > 60 * 24 * 365) {
            throw new CommandRejectedError('Move the clock forward by a whole number of minutes, up to a year.');
          }
          const current = clock();
          if (current === undefined) throw new CommandRejectedError('That chat does not exist.');
          const fictionTime = addFictionMinutes(current, minutes);
          appendEvents(ctx, stampFirst([{ kind: 'clock_advanced', chatId, payload: { minutes, fictionTime } }]));
          return fictionTime;
        },
        () => clock() ?? '',
      );
    },
  }),
};
