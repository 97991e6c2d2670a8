import type { Db } from '../db/port.ts';
import { MEMORY_COLUMNS, toMemory, type Memory, type MemoryRow } from '../memory/memory-row.ts';
import { PIN_CAP, pinnedCount } from '../memory/pins.ts';
import { castOf } from '../analysis/cast.ts';
import type { EntityRef } from '../events/fields.ts';
import { effectiveSampler, type Sampler, type SamplerOverrides } from '../settings/sampler.ts';
import { readSettings } from '../settings/settings.ts';
import { editedValues, latestEdit } from './state-edits.ts';
import { z } from 'zod';
import { defineQuery, id } from '../call.ts';
import { TRACKED_TABLES } from '../state/tracked-values.ts';
import type { ReplyOrder } from '../turn/reply-order.ts';
import type { Thread } from '../state/threads.ts';
import type { Item } from '../state/items.ts';
import { chatFields, type TrackedField } from '../state/fields.ts';
import { chatKeyOf } from '../events/tables.ts';

export { PIN_CAP };
export type { Memory };

export interface Place {
  id: string;
  name: string;
  type: string;
  properties: Record<string, string | number | boolean>;
  parentId: string | null;
}

export interface Activity {
  entity: EntityRef;
  containerId: string | null;
  slot: string;
  posture: string;
  action: { verb: string; interruptible: boolean; requiredAttention: string; expectedMinutes: number | null };
  attention: string;
  status: string;
  /** Kept present but silent: never given the turn unless the player asks ("Let <name> speak"). */
  muted: boolean;
}

export interface Edge {
  source: EntityRef;
  target: EntityRef;
  affinity: number;
  trust: number;
  knowledge: string[];
  summary: string;
  lastInteraction: string | null;
}

export interface ChatState {
  chatId: string;
  title: string;
  botId: string;
  fictionTime: string;
  weather: string;
  narrativeAnchor: string;
  /** The player's standing instruction to the narrator, told near the end of every prompt ('' when none). */
  directorNote: string;
  /** Who answers the player when guests are present (turn/reply-order.ts). */
  replyOrder: ReplyOrder;
  /** This chat's own sampling knobs (null: it follows the global settings). */
  sampler: SamplerOverrides | null;
  /**
   * The picture behind the story: `shown` (a hash, or null for none) is the chat's own `choice`
   * (a picture, or none) or else its host's background (`host`), so the menu can offer the others.
   */
  background: { shown: string | null; choice: 'host' | 'none' | 'picture'; host: string | null };
  /** In "Recently deleted": the chat itself, or its bot (whose chats went with it); null when not. */
  deleted: 'chat' | 'bot' | null;
  scene: { id: string; participants: EntityRef[]; openedFictionTime: string } | null;
  /** When the scene before this one ended, in story time (null before any scene ended). */
  lastSceneEnded: string | null;
  place: Place | null;
  activities: Activity[];
  edges: Edge[];
  /** The story's threads: open ones first (oldest first), then the settled, newest first. */
  threads: Thread[];
  /** What each carries or owns and what lies about, still in the story: by holder (you first), then as they came. */
  items: Item[];
  /** The player's own fields, in the order they were added, with their values by owner. */
  fields: TrackedField[];
  /** Display names of everyone in the chat, by ref ('you' or a bot id). */
  names: Record<string, string>;
  /** The host bot's memories of this chat: pinned first, then newest. */
  memories: Memory[];
  pinned: { count: number; cap: number };
  /** Values set by hand in the drawer ("edited by you"): 'target:field' keys, e.g. 'edge:<source>:<target>:affinity'. */
  edited: string[];
  /** What "Undo last edit" would take back (the field), or null when there is no edit to undo. */
  lastEdit: string | null;
}

interface StateRow {
  id: string;
  title: string;
  bot_id: string;
  fiction_time: string;
  weather: string;
  narrative_anchor: string;
  director_note: string;
  reply_order: ReplyOrder;
  chat_background: string | null;
  host_background: string | null;
  chat_deleted: number | null;
  bot_deleted: number | null;
  scene_id: string | null;
  participants: string | null;
  opened_fiction_time: string | null;
  scene_container: string | null;
}

const MEMORY_LIMIT = 50;

/** A chat's own sampling knobs, or null when it follows the global settings. */
export function chatSampler(db: Db, chatId: string): SamplerOverrides | null {
  const raw = db.get<{ sampler: string | null }>('SELECT sampler FROM chats WHERE id = ?', [chatId])?.sampler;
  return raw ? (JSON.parse(raw) as SamplerOverrides) : null;
}

/** Everything the chat's side drawer shows: clock, scene, place, who does what, feelings, memories. */
/** The sampling a chat's replies use: its own knobs over the global settings. */
export const samplerFor = (db: Db, chatId: string): Sampler => effectiveSampler(readSettings(db).sampler, chatSampler(db, chatId));

export function chatState(db: Db, chatId: string): ChatState | undefined {
  const state = db.get<StateRow>(
    `SELECT c.id, c.title, c.bot_id, s.fiction_time, s.weather, s.narrative_anchor, s.director_note, s.reply_order,
       c.background AS chat_background, (SELECT b.background FROM bots b WHERE b.id = c.bot_id) AS host_background,
       c.deleted_ts AS chat_deleted, (SELECT b.deleted_ts FROM bots b WHERE b.id = c.bot_id) AS bot_deleted,
       sc.id AS scene_id, sc.participants, sc.opened_fiction_time, sc.container_id AS scene_container
     FROM chats c JOIN chat_state s ON s.chat_id = c.id
     LEFT JOIN scenes sc ON sc.chat_id = s.chat_id AND sc.id = s.active_scene_id
     WHERE c.id = ?`,
    [chatId],
  );
  if (!state) return undefined;

  const activities = db
    .all<Record<string, string | null>>(
      `SELECT entity, container_id, slot, posture, action, attention, status, muted
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
        status: r.status!,
        muted: Number(r.muted) === 1,
      }),
    );

  const placeId = state.scene_container ?? activities.find((a) => a.entity === state.bot_id)?.containerId ?? null;
  const placeRow = placeId
    ? db.get<{ id: string; name: string; type: string; properties: string; parent_id: string | null }>(
        'SELECT id, name, type, properties, parent_id FROM containers WHERE chat_id = ? AND id = ?',
        [chatId, placeId],
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
           (SELECT fact FROM edge_fact_rows f WHERE f.chat = ${chatKeyOf('edge_facts', 'e.chat_id')} AND f.source = id_key(e.source) AND f.target = id_key(e.target)
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
    .all<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.chat_id = ? AND m.owner_key = id_key(?)
       ORDER BY m.pinned DESC, m.created_seq DESC LIMIT ${MEMORY_LIMIT}`,
      [chatId, state.bot_id],
    )
    .map(toMemory);

  return {
    chatId: state.id,
    title: state.title,
    botId: state.bot_id,
    fictionTime: state.fiction_time,
    weather: state.weather,
    narrativeAnchor: state.narrative_anchor,
    directorNote: state.director_note,
    replyOrder: state.reply_order,
    sampler: chatSampler(db, chatId),
    background: {
      shown: state.chat_background === 'none' ? null : (state.chat_background ?? state.host_background),
      choice: state.chat_background === null ? 'host' : state.chat_background === 'none' ? 'none' : 'picture',
      host: state.host_background,
    },
    deleted: state.chat_deleted !== null ? 'chat' : state.bot_deleted !== null ? 'bot' : null,
    scene:
      state.scene_id === null
        ? null
        : {
            id: state.scene_id,
            participants: JSON.parse(state.participants ?? '[]') as string[],
            openedFictionTime: state.opened_fiction_time ?? state.fiction_time,
          },
    // A chat's scenes run one after another, so the last to close is the last opened of those
    // closed: read from the chat's newest back on its index, where closing order read them all.
    lastSceneEnded:
      db.get<{ t: string | null }>(
        'SELECT closed_fiction_time AS t FROM scenes WHERE chat_id = ? AND closed_seq IS NOT NULL AND closed_fiction_time IS NOT NULL ORDER BY opened_seq DESC LIMIT 1',
        [chatId],
      )?.t ?? null,
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
    threads: db
      .all<{ id: string; kind: Thread['kind']; text: string; status: Thread['status']; opened_fiction_time: string }>(
        `SELECT id, kind, text, status, opened_fiction_time FROM threads WHERE chat_id = ?
         ORDER BY status = 'open' DESC, CASE WHEN status = 'open' THEN opened_seq ELSE -coalesce(resolved_seq, opened_seq) END`,
        [chatId],
      )
      .map((r) => ({ id: r.id, kind: r.kind, text: r.text, status: r.status, openedFictionTime: r.opened_fiction_time })),
    items: db
      .all<{ id: string; name: string; holder: string; place: string; state: string }>(
        `SELECT id, name, holder, place, state FROM items WHERE chat_id = ? AND gone = 0 ORDER BY holder = '' , holder <> 'you', holder, created_seq, id`,
        [chatId],
      )
      .map((r) => ({ id: r.id, name: r.name, holder: r.holder, where: r.place, state: r.state })),
    fields: chatFields(db, chatId),
    names: Object.fromEntries((castOf(db, chatId)?.members ?? []).map((m) => [m.ref, m.name])),
    memories,
    edited: editedValues(db, chatId),
    lastEdit: latestEdit(db, chatId)?.field ?? null,
    pinned: { count: pinnedCount(db, chatId, state.bot_id), cap: PIN_CAP },
  };
}

export const chatStateCalls = {
  /** The drawer: place, clock, scene, who is there, feelings, memories, what was edited by hand. */
  chatState: defineQuery({
    args: z.tuple([id]),
    reads: ['chats', 'chat_state', 'scenes', 'activity', 'edges', 'edge_facts', 'memories', 'bots', 'you', 'state_edits', 'visibility', ...TRACKED_TABLES],
    run: ({ db }, chatId) => chatState(db, chatId),
  }),
};
