import type { Db } from '../db/port.ts';

export const PIN_CAP = 8;

export interface Place {
  id: string;
  name: string;
  type: string;
  properties: Record<string, string | number | boolean>;
  parentId: string | null;
}

export interface Activity {
  entity: string;
  containerId: string | null;
  slot: string;
  posture: string;
  action: { verb: string; interruptible: boolean; requiredAttention: string; expectedMinutes: number | null };
  attention: string;
  holding: string[];
  status: string;
}

export interface Edge {
  source: string;
  target: string;
  affinity: number;
  trust: number;
  knowledge: string[];
  summary: string;
  lastInteraction: string | null;
}

export interface Memory {
  id: string;
  ownerId: string;
  sceneId: string | null;
  summary: string;
  witness: { you: boolean; host: boolean; guest: boolean };
  fictionTime: string;
  source: string;
  reliability: number;
  significance: number;
  pinned: boolean;
  autoPinned: boolean;
}

export interface Drawer {
  chatId: string;
  title: string;
  botId: string;
  fictionTime: string;
  weather: string;
  narrativeAnchor: string;
  scene: { id: string; participants: string[]; openedFictionTime: string } | null;
  place: Place | null;
  activities: Activity[];
  edges: Edge[];
  /** The host bot's memories of this chat: pinned first, then newest. */
  memories: Memory[];
  pinned: { count: number; cap: number };
}

interface StateRow {
  id: string;
  title: string;
  bot_id: string;
  fiction_time: string;
  weather: string;
  narrative_anchor: string;
  scene_id: string | null;
  participants: string | null;
  opened_fiction_time: string | null;
  scene_container: string | null;
}

const MEMORY_LIMIT = 50;

/** Everything the chat's side drawer shows: clock, scene, place, who does what, feelings, memories. */
export function drawerState(db: Db, chatId: string): Drawer | undefined {
  const state = db.get<StateRow>(
    `SELECT c.id, c.title, c.bot_id, s.fiction_time, s.weather, s.narrative_anchor,
       sc.id AS scene_id, sc.participants, sc.opened_fiction_time, sc.container_id AS scene_container
     FROM chats c JOIN chat_state s ON s.chat_id = c.id
     LEFT JOIN scenes sc ON sc.id = s.active_scene_id
     WHERE c.id = ?`,
    [chatId],
  );
  if (!state) return undefined;

  const activities = db
    .all<Record<string, string | null>>(
      `SELECT entity, container_id, slot, posture, action, attention, holding, status
       FROM activity WHERE chat_id = ? ORDER BY entity = 'you' DESC, entity`,
      [chatId],
    )
    .map(
      (r): Activity => ({
        entity: r.entity!,
        containerId: r.container_id ?? null,
        slot: r.slot!,
        posture: r.posture!,
        action: JSON.parse(r.action!) as Activity['action'],
        attention: r.attention!,
        holding: JSON.parse(r.holding!) as string[],
        status: r.status!,
      }),
    );

  const placeId = state.scene_container ?? activities.find((a) => a.entity === state.bot_id)?.containerId ?? null;
  const placeRow = placeId
    ? db.get<{ id: string; name: string; type: string; properties: string; parent_id: string | null }>(
        'SELECT id, name, type, properties, parent_id FROM containers WHERE id = ?',
        [placeId],
      )
    : undefined;

  const edges = db
    .all<{
      source: string;
      target: string;
      affinity: number;
      trust: number;
      knowledge: string;
      summary: string;
      last_interaction: string | null;
    }>(
      `SELECT source, target, affinity, trust, summary, last_interaction,
         (SELECT json_group_array(fact) FROM
           (SELECT fact FROM edge_facts f WHERE f.chat_id = e.chat_id AND f.source = e.source AND f.target = e.target
            ORDER BY added_seq, rowid)) AS knowledge
       FROM edges e WHERE chat_id = ? ORDER BY source, target`,
      [chatId],
    )
    .map(
      (r): Edge => ({
        source: r.source,
        target: r.target,
        affinity: r.affinity,
        trust: r.trust,
        knowledge: JSON.parse(r.knowledge) as string[],
        summary: r.summary,
        lastInteraction: r.last_interaction,
      }),
    );

  const memories = db
    .all<Record<string, string | number | null>>(
      `SELECT id, owner_id, scene_id, summary, witness_you, witness_host, witness_guest, fiction_time, source,
         reliability, significance, pinned, auto_pinned
       FROM memories WHERE chat_id = ? AND owner_id = ?
       ORDER BY pinned DESC, created_seq DESC LIMIT ${MEMORY_LIMIT}`,
      [chatId, state.bot_id],
    )
    .map(
      (r): Memory => ({
        id: String(r.id),
        ownerId: String(r.owner_id),
        sceneId: r.scene_id === null ? null : String(r.scene_id),
        summary: String(r.summary),
        witness: { you: r.witness_you === 1, host: r.witness_host === 1, guest: r.witness_guest === 1 },
        fictionTime: String(r.fiction_time),
        source: String(r.source),
        reliability: Number(r.reliability),
        significance: Number(r.significance),
        pinned: r.pinned === 1,
        autoPinned: r.auto_pinned === 1,
      }),
    );

  const pinnedCount =
    db.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE owner_id = ? AND pinned = 1', [state.bot_id])?.n ?? 0;

  return {
    chatId: state.id,
    title: state.title,
    botId: state.bot_id,
    fictionTime: state.fiction_time,
    weather: state.weather,
    narrativeAnchor: state.narrative_anchor,
    scene:
      state.scene_id === null
        ? null
        : {
            id: state.scene_id,
            participants: JSON.parse(state.participants ?? '[]') as string[],
            openedFictionTime: state.opened_fiction_time ?? state.fiction_time,
          },
    place: placeRow
      ? {
          id: placeRow.id,
          name: placeRow.name,
          type: placeRow.type,
          properties: JSON.parse(placeRow.properties) as Place['properties'],
          parentId: placeRow.parent_id,
        }
      : null,
    activities,
    edges,
    memories,
    pinned: { count: pinnedCount, cap: PIN_CAP },
  };
}
