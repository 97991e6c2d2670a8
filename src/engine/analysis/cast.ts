import type { Db } from '../db/port.ts';
import { personaOf } from '../authoring/personas.ts';
import type { ChatRole } from '../memory/memory-row.ts';

export interface CastMember {
  /** 'you' or a bot id: what edges, activities and memories name. */
  ref: string;
  role: ChatRole;
  name: string;
  /** In the scene and able to perceive it: only they witness a turn. */
  present: boolean;
}

export interface Cast {
  chatId: string;
  hostId: string;
  members: CastMember[];
  present: CastMember[];
  /** Present bots: the witnesses that own memories (the user keeps none; they have the transcript). */
  witnessBots: CastMember[];
  witness: Record<ChatRole, boolean>;
  nameOf(ref: string): string;
}

/**
 * Who takes part in a chat, in which role, and who is present now. The host is the chat's bot; any
 * other bot with an activity in the chat is a guest. Presence is the activity status: someone away,
 * asleep or unconscious witnesses nothing. Someone with no activity yet counts as present.
 */
export function castOf(db: Db, chatId: string): Cast | undefined {
  const chat = db.get<{ bot_id: string }>('SELECT bot_id FROM chats WHERE id = ?', [chatId]);
  if (!chat) return undefined;
  const you = personaOf(db, chatId)?.name ?? 'You';
  const status = new Map(
    db.all<{ entity: string; status: string }>('SELECT entity, status FROM activity WHERE chat_id = ?', [chatId]).map((r) => [r.entity, r.status]),
  );
  const guests = [...status.keys()].filter((e) => e !== 'you' && e !== chat.bot_id).sort();
  const botName = (id: string) => db.get<{ name: string }>('SELECT name FROM bots WHERE id = ?', [id])?.name ?? 'Someone';
  const member = (ref: string, role: ChatRole, name: string): CastMember => ({ ref, role, name, present: (status.get(ref) ?? 'present') === 'present' });
  const members = [member('you', 'you', you), member(chat.bot_id, 'host', botName(chat.bot_id)), ...guests.map((g) => member(g, 'guest', botName(g)))];
  const present = members.filter((m) => m.present);
  return {
    chatId,
    hostId: chat.bot_id,
    members,
    present,
    witnessBots: present.filter((m) => m.ref !== 'you'),
    witness: { you: present.some((m) => m.role === 'you'), host: present.some((m) => m.role === 'host'), guest: present.some((m) => m.role === 'guest') },
    nameOf: (ref) => members.find((m) => m.ref === ref)?.name ?? 'someone',
  };
}
