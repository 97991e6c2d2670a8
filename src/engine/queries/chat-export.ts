import type { Db } from '../db/port.ts';
import { personaOf, TURN_PERSONA_SQL } from '../authoring/personas.ts';
import { replyVersions } from '../log/visibility.ts';
import { readSettings } from '../settings/settings.ts';
import { closingMarker } from '../turn/parse.ts';
import { z } from 'zod';
import { defineQuery, id } from '../call.ts';
import { chatFields } from '../state/fields.ts';
import { castOf } from '../analysis/cast.ts';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Row {
  seq: number;
  role: 'user' | 'assistant';
  speaker: string;
  name: string | null;
  text: string;
  ts: number;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** SillyTavern's `send_date`: "November 23, 2026 11:12pm" (in UTC: the engine has no time zone). */
function sendDate(ms: number): string {
  const d = new Date(ms);
  const hour = d.getUTCHours() % 12 || 12;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${hour}:${String(d.getUTCMinutes()).padStart(2, '0')}${d.getUTCHours() < 12 ? 'am' : 'pm'}`;
}

/** The chat's story as shown: turns in order, without deleted or streaming ones. */
function storyRows(db: Db, chatId: string): Row[] {
  return db.all<Row>(
    `SELECT t.seq, t.role, t.speaker, CASE WHEN t.speaker = 'you' THEN (SELECT name FROM you WHERE id = ${TURN_PERSONA_SQL}) ELSE b.name END AS name,
       t.text, coalesce(t.sent_at, e.ts) AS ts
     FROM transcript t JOIN events e ON e.seq = t.seq LEFT JOIN bots b ON b.id = t.speaker
     WHERE t.chat_id = ? AND t.hidden = 0 AND t.status != 'streaming' ORDER BY t.seq`,
    [chatId],
  );
}

/**
 * The chat as a SillyTavern chat file (JSON lines): a header naming you and the bot, then one line
 * a message; a reply with versions carries them as swipes, the shown one selected.
 */
export function chatAsSillyTavern(db: Db, chatId: string): string {
  const chat = db.get<{ title: string; bot: string | null; created: number }>(
    'SELECT c.title, b.name AS bot, c.created_ts AS created FROM chats c LEFT JOIN bots b ON b.id = c.bot_id WHERE c.id = ?',
    [chatId],
  );
  if (!chat) throw new Error('That chat does not exist.');
  const you = personaOf(db, chatId)?.name ?? 'You';
  const created = new Date(chat.created);
  const stamp = `${created.getUTCFullYear()}-${created.getUTCMonth() + 1}-${created.getUTCDate()}@${String(created.getUTCHours()).padStart(2, '0')}h${String(created.getUTCMinutes()).padStart(2, '0')}m${String(created.getUTCSeconds()).padStart(2, '0')}s`;
  // The player's own fields and where they stand go with the chat, in this app's part of the metadata
  // (values by the name of whose they are; '' is the chat's own).
  const fields = chatFields(db, chatId);
  const names = Object.fromEntries((castOf(db, chatId)?.members ?? []).map((m) => [m.ref, m.name]));
  const metadata = fields.length
    ? { roleplay_engine: { tracked_fields: fields.map(({ def, values }) => ({ ...def, values: Object.fromEntries(Object.entries(values).map(([owner, value]) => [owner ? (names[owner] ?? owner) : '', value])) })) } }
    : {};
  const lines = [JSON.stringify({ user_name: you, character_name: chat.bot ?? 'Character', create_date: stamp, chat_metadata: metadata })];
  for (const row of storyRows(db, chatId)) {
    const message: Record<string, unknown> = {
      name: row.name ?? 'Someone',
      is_user: row.role === 'user',
      is_system: false,
      send_date: sendDate(row.ts),
      mes: row.text,
      extra: {},
    };
    if (row.role === 'assistant') {
      const started = db.get<{ id: string }>('SELECT id FROM events WHERE seq = ?', [row.seq])!;
      const versions = replyVersions(db, started.id);
      if (versions.length > 1) {
        message.swipes = versions.map((v) =>
          v.seq === row.seq
            ? row.text
            : (db.get<{ text: string }>("SELECT json_extract(payload, '$.text') AS text FROM events WHERE kind = 'assistant_turn' AND cause_key = id_key(?) ORDER BY seq DESC LIMIT 1", [v.id])?.text ?? ''),
        );
        message.swipe_id = versions.findIndex((v) => v.seq === row.seq);
      }
    }
    lines.push(JSON.stringify(message));
  }
  return `${lines.join('\n')}\n`;
}

/** The chat as Markdown to read anywhere: speakers in bold, scene breaks as rules, asides marked. */
export function chatAsMarkdown(db: Db, chatId: string): string {
  const chat = db.get<{ title: string }>('SELECT title FROM chats WHERE id = ?', [chatId]);
  if (!chat) throw new Error('That chat does not exist.');
  const scenes = db.all<{ opened_seq: number }>('SELECT opened_seq FROM scenes WHERE chat_id = ? ORDER BY opened_seq', [chatId]).map((s) => s.opened_seq);
  const open = readSettings(db).oocMarker;
  const aside = new RegExp(`${escapeRegex(open)}([\\s\\S]*?)(?:${escapeRegex(closingMarker(open))}|$)`, 'g');
  const out = [`# ${chat.title}`, ''];
  let scene = 0;
  let first = true;
  for (const row of storyRows(db, chatId)) {
    let crossed = false;
    while (scene < scenes.length && scenes[scene]! <= row.seq) {
      scene++;
      crossed = true;
    }
    if (crossed && !first) out.push('---', '');
    first = false;
    // A user's asides, as the player typed them (an unclosed one runs to the end, as the parser reads it).
    const text = row.role === 'user' ? row.text.replace(aside, (_, inner: string) => `*(out of character: ${inner.trim()})*`) : row.text;
    out.push(`**${row.name ?? 'Someone'}:** ${text.trim()}`, '');
  }
  return out.join('\n');
}

export const chatExportCalls = {
  /** A chat as a file to save: SillyTavern JSON lines or Markdown. */
  exportChat: defineQuery({
    args: z.tuple([id, z.enum(['sillytavern', 'markdown'])]),
    run: ({ db }, chatId, as) => (as === 'markdown' ? chatAsMarkdown(db, chatId) : chatAsSillyTavern(db, chatId)),
  }),
};
