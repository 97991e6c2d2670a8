import { z } from 'zod';
import { defineEvent, json } from './define.ts';
import { uuid, eventId, shortText } from './fields.ts';
import { chooseVersion, supersedeCaused } from '../log/visibility.ts';
import { promptReport } from '../turn/prompt-report.ts';
import { storedSegments } from '../turn/stored-segments.ts';
import { chatKeyOf } from './tables.ts';

export const segment = z.object({
  type: z.enum(['dialogue', 'action', 'ooc', 'narration']),
  text: z.string().max(20_000),
});
export type Segment = z.infer<typeof segment>;

/** A date a turn carries from elsewhere (ms since 1970), within years anyone wrote a chat in. */
const sentAt = z.number().int().min(0).max(Date.UTC(2200, 0, 1));

/** The transcript's rows name their chat by its number in the log (migration 0057). */
const TRANSCRIPT_CHAT = (chatId: string) => chatKeyOf('transcript', chatId);

/**
 * A turn's words as its row keeps them (the parameter `words`, written by the event at `seq`): none
 * when they are the words that event holds, which the view `transcript` reads from the log
 * (migration 0053). Compared in SQL with what the log holds, so words that read back otherwise
 * keep their own copy.
 */
const wordsUnlessLogged = (words: string, seq: string) => `CASE WHEN ${words} IS (SELECT payload_json(payload) ->> '$.text' FROM event_rows WHERE seq = ${seq}) THEN NULL ELSE ${words} END`;

/** What the user wrote, raw and parsed. OOC segments are kept for the transcript, never sent on. */
export const userTurn = defineEvent({
  kind: 'user_turn',
  writes: ['transcript'],
  scope: 'chat',
  schema: z.object({
    turnId: uuid,
    text: z.string().trim().min(1, 'must not be empty').max(20_000),
    segments: z.array(segment).max(500),
    /** When it was sent, for a turn from an imported chat (ms); a turn played here has its event's ts. */
    sentAt: sentAt.optional(),
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      // Written by the persona the chat plays now (none chosen: whoever is the default when it is read).
      `INSERT INTO transcript_rows (turn_id, chat, seq, role, speaker, text, segments, status, finished_seq, sent_at, persona_id)
       VALUES (id_key(?1), ${TRANSCRIPT_CHAT('?2')}, ?3, 'user', 'you', ${wordsUnlessLogged('?4', '?3')}, ?5, 'done', ?3, ?6, (SELECT persona_id FROM chats WHERE id = ?2)) ON CONFLICT (chat, turn_id) DO NOTHING`,
      [p.turnId, chatId, seq, p.text, storedSegments(p.segments, p.text), p.sentAt ?? null],
    );
  },
});

/**
 * The narrator began a reply. The row shows as streaming until `assistant_turn` finishes it. A
 * regenerate names the reply it replaces (`regenerateOf`, that reply's assistant_turn_started):
 * that reply's versions and all they caused are superseded, and stay in the log as earlier versions.
 */
export const assistantTurnStarted = defineEvent({
  kind: 'assistant_turn_started',
  writes: ['transcript', 'visibility'],
  scope: 'chat',
  schema: z.object({ turnId: uuid, speaker: uuid, model: shortText(200), regenerateOf: eventId.optional() }),
  // Every earlier version gives way, not only the one named: two devices that regenerated the same
  // reply offline each name it, and the later of the two is then shown with the other as a version.
  // (On one device the other versions were superseded already: the same result.)
  marks: (db, event) => (event.payload.regenerateOf ? chooseVersion(db, event.id, event) : []),
  refersTo: (payload) => (payload.regenerateOf ? [payload.regenerateOf] : []),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO transcript_rows (turn_id, chat, seq, role, speaker, text, status, model)
       VALUES (id_key(?1), ${TRANSCRIPT_CHAT('?2')}, ?3, 'assistant', id_key(?4), '', 'streaming', ?5) ON CONFLICT (chat, turn_id) DO NOTHING`,
      [p.turnId, chatId, seq, p.speaker, p.model],
    );
  },
});

export const usage = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
});

export const truncationReason = z.enum(['stopped', 'error', 'interrupted', 'length']);

export const assistantTurn = defineEvent({
  kind: 'assistant_turn',
  writes: ['transcript'],
  scope: 'chat',
  schema: z
    .object({
      turnId: uuid,
      speaker: uuid,
      model: shortText(200),
      text: z.string().max(100_000),
      truncated: z.boolean(),
      reason: truncationReason.nullable(),
      usage: usage.nullable(),
      /** Why the reply stopped early, when the relay or the model failed. */
      error: z.object({ code: shortText(60), message: shortText(1_000) }).nullable().optional(),
      /** The prompt that produced it, for the inspector; absent on replies from before it was kept. */
      prompt: promptReport.nullable().optional(),
      /** A thinking model's thinking, kept apart from the reply (issue 35); `ms`: how long, when known. */
      thinking: z.object({ text: z.string().max(200_000), ms: z.number().int().min(0).nullable() }).optional(),
      sentAt: sentAt.optional(),
    })
    .refine((p) => p.truncated === (p.reason !== null), {
      message: 'a truncated turn needs a reason, and only a truncated one has one',
      path: ['reason'],
    }),
  apply(db, { seq, chatId, payload: p }) {
    // Upsert, so a turn whose start was never logged (a crash between the two) still shows.
    db.run(
      `INSERT INTO transcript_rows (turn_id, chat, seq, role, speaker, text, status, reason, model,
         prompt_tokens, completion_tokens, finished_seq, error, sent_at, thinking, thinking_ms)
       VALUES (id_key(?1), ${TRANSCRIPT_CHAT('?2')}, ?3, 'assistant', id_key(?4), ${wordsUnlessLogged('?5', '?3')}, ?6, ?7, ?8, ?9, ?10, ?3, ?11, ?12, ?13, ?14)
       ON CONFLICT (chat, turn_id) DO UPDATE SET speaker = excluded.speaker, text = excluded.text, status = excluded.status,
         reason = excluded.reason, model = excluded.model, prompt_tokens = excluded.prompt_tokens,
         completion_tokens = excluded.completion_tokens, finished_seq = excluded.finished_seq, error = excluded.error,
         sent_at = coalesce(excluded.sent_at, transcript_rows.sent_at), thinking = coalesce(excluded.thinking, transcript_rows.thinking),
         thinking_ms = CASE WHEN excluded.thinking IS NULL THEN transcript_rows.thinking_ms ELSE excluded.thinking_ms END`,
      [
        p.turnId,
        chatId,
        seq,
        p.speaker,
        p.text,
        p.truncated ? 'truncated' : 'done',
        p.reason,
        p.model,
        p.usage?.promptTokens ?? null,
        p.usage?.completionTokens ?? null,
        p.error ? json(p.error) : null,
        p.sentAt ?? null,
        p.thinking?.text ?? null,
        p.thinking?.ms ?? null,
      ],
    );
  },
});

/**
 * The player flipped to another version of the latest reply (‹ 2/3 ›). That version and what it
 * caused (its analysis: feelings, memories, clock) are in force again; every other version is
 * superseded. A version never analysed gets its analysis once it is shown.
 */
export const replyVersionChosen = defineEvent({
  kind: 'reply_version_chosen',
  writes: ['visibility'],
  scope: 'chat',
  schema: z.object({ version: eventId }),
  apply() {},
  marks: (db, event) => chooseVersion(db, event.payload.version, event),
  refersTo: (payload) => [payload.version],
});

/**
 * The player rewrote a turn. A user turn carries its segments parsed again, so the narrator sees the
 * new words. Editing the latest reply names that reply's assistant_turn (`analysisOf`): what its
 * analysis wrote is superseded, and the analysis runs again on the new text. An older turn's edit
 * changes only its text: the story state it caused stays (that is what Rewind is for).
 */
export const turnEdited = defineEvent({
  kind: 'turn_edited',
  writes: ['transcript', 'visibility'],
  scope: 'chat',
  schema: z.object({
    turnId: uuid,
    text: z.string().max(100_000),
    segments: z.array(segment).max(500).nullable(),
    analysisOf: eventId.optional(),
  }),
  marks: (db, event) => (event.payload.analysisOf ? supersedeCaused(db, event.payload.analysisOf, event) : []),
  refersTo: (payload) => (payload.analysisOf ? [payload.analysisOf] : []),
  apply(db, { chatId, payload: p }) {
    db.run(`UPDATE transcript_rows SET text = ?, segments = coalesce(?, segments), edited = 1 WHERE turn_id = id_key(?) AND chat = ${TRANSCRIPT_CHAT('?')}`, [
      p.text,
      p.segments ? storedSegments(p.segments, p.text) : null,
      p.turnId,
      chatId,
    ]);
  },
});

/** "Delete" on a turn: it leaves the transcript and the prompt, and a stub offers it back. What it caused stays. */
export const turnHidden = defineEvent({
  kind: 'turn_hidden',
  writes: ['transcript'],
  scope: 'chat',
  schema: z.object({ turnId: uuid, hidden: z.boolean() }),
  apply(db, { chatId, payload: p }) {
    db.run(`UPDATE transcript_rows SET hidden = ? WHERE turn_id = id_key(?) AND chat = ${TRANSCRIPT_CHAT('?')}`, [p.hidden ? 1 : 0, p.turnId, chatId]);
  },
});

/**
 * "Continue": the narrator goes on from the reply's last word. The row streams again, keeping its
 * text; the next `assistant_turn` for the same turn holds the whole reply. The reply's analysis
 * (`analysisOf`, its latest assistant_turn) is superseded, to be redone on the longer text.
 */
export const replyContinued = defineEvent({
  kind: 'reply_continued',
  writes: ['transcript', 'visibility'],
  scope: 'chat',
  schema: z.object({ turnId: uuid, analysisOf: eventId.optional() }),
  marks: (db, event) => (event.payload.analysisOf ? supersedeCaused(db, event.payload.analysisOf, event) : []),
  refersTo: (payload) => (payload.analysisOf ? [payload.analysisOf] : []),
  apply(db, { chatId, payload: p }) {
    db.run(`UPDATE transcript_rows SET status = 'streaming', reason = NULL, error = NULL WHERE turn_id = id_key(?) AND chat = ${TRANSCRIPT_CHAT('?')}`, [p.turnId, chatId]);
  },
});
