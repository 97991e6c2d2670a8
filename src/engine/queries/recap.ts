import type { Db } from '../db/port.ts';
import { z } from 'zod';
import { defineQuery, id } from '../call.ts';
import { chatState } from './chat-state.ts';
import { firstLine } from './chats.ts';

/** "Previously on…": what the player saw lately, built from the story's state alone (no model call). */
export interface Recap {
  title: string;
  /** The chat's clock now: every "when" below is read against it. */
  now: string;
  /** The latest scenes, oldest first: where, when they began, and what the player saw happen in them (each memory cut short). */
  scenes: { sceneId: string; place: string | null; began: string; happened: { summary: string; fictionTime: string }[] }[];
  /** What the story still owes: its open threads, oldest first. */
  openThreads: { kind: string; text: string; openedFictionTime: string }[];
  /** Where everyone is and what they are doing. */
  where: { name: string; place: string | null; doing: string; away: boolean }[];
  /** The first line of the last reply: where the story stopped. */
  lastLine: string | null;
}

const SCENES = 3;
const PER_SCENE = 2;
const BRIEF = 240;

/** A memory cut to what a recap has room for: whole sentences up to about 240 characters. */
export function brief(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= BRIEF) return flat;
  const sentences = flat.match(/[^.!?…]+[.!?…]+["'”’)]*\s*/g) ?? [];
  let out = '';
  for (const sentence of sentences) {
    if ((out + sentence).length > BRIEF) break;
    out += sentence;
  }
  return out.trim() || `${flat.slice(0, BRIEF - 1).trimEnd()}…`;
}

/**
 * The recap from the player's point of view: only what the player witnessed (the host's memories
 * with the player's witness flag), grouped by the latest scenes, the most significant first within
 * each; then where everyone is, and the last line of the story.
 */
export function recap(db: Db, chatId: string): Recap | undefined {
  const state = chatState(db, chatId);
  if (!state) return undefined;
  const scenes = db
    .all<{ id: string; opened_fiction_time: string; place: string | null }>(
      `SELECT s.id, s.opened_fiction_time, c.name AS place FROM scenes s
       LEFT JOIN containers c ON c.chat_id = s.chat_id AND c.id = s.container_id
       WHERE s.chat_id = ? AND EXISTS (SELECT 1 FROM memories m WHERE m.chat_id = s.chat_id AND m.scene_key = id_key(s.id) AND m.owner_key = id_key(?) AND m.witness_you = 1)
       ORDER BY s.opened_seq DESC LIMIT ${SCENES}`,
      [chatId, state.botId],
    )
    .reverse()
    .map((scene) => ({
      sceneId: scene.id,
      place: scene.place,
      began: scene.opened_fiction_time,
      happened: db
        .all<{ summary: string; fiction_time: string }>(
          `SELECT summary, fiction_time FROM (
             SELECT summary, fiction_time, created_seq FROM memories
             WHERE chat_id = ? AND scene_key = id_key(?) AND owner_key = id_key(?) AND witness_you = 1
             ORDER BY significance DESC, created_seq DESC LIMIT ${PER_SCENE})
           ORDER BY created_seq`,
          [chatId, scene.id, state.botId],
        )
        .map((m) => ({ summary: brief(m.summary), fictionTime: m.fiction_time })),
    }));
  const placeName = (id: string | null) => (id ? (db.get<{ name: string }>('SELECT name FROM containers WHERE chat_id = ? AND id = ?', [chatId, id])?.name ?? null) : null);
  const last = db.get<{ text: string }>(
    "SELECT text FROM transcript WHERE chat_id = ? AND role = 'assistant' AND hidden = 0 AND text != '' ORDER BY seq DESC LIMIT 1",
    [chatId],
  );
  return {
    title: state.title,
    now: state.fictionTime,
    scenes,
    openThreads: state.threads.filter((t) => t.status === 'open').map((t) => ({ kind: t.kind, text: t.text, openedFictionTime: t.openedFictionTime })),
    where: state.activities.map((a) => ({
      name: state.names[a.entity] ?? a.entity,
      place: placeName(a.containerId),
      doing: [a.posture, a.action.verb].filter(Boolean).join(', '),
      away: a.status !== 'present',
    })),
    lastLine: last ? firstLine(last.text) : null,
  };
}

export const recapCalls = {
  /** "Previously on…" for a chat: asked when the player comes back, or opens it from the chat's menu. */
  recap: defineQuery({
    args: z.tuple([id]),
    run: ({ db }, chatId) => recap(db, chatId) ?? null,
  }),
};
