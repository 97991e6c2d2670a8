import type { z } from 'zod';
import type { action } from '../events/world.ts';
import type { LogContext } from '../log/context.ts';
import type { EventDraft } from '../log/draft.ts';
import type { Cast } from './cast.ts';

export interface SceneEnding {
  reason: 'place_changed' | 'parting' | 'time_skip' | 'manual';
  /** The ending turn's own significance; the scene's is the highest of it and its memories'. */
  significance: number;
  fictionTime: string;
  /** For 'place_changed': where everyone present is now. */
  newPlace?: string;
}

interface ActivityRow {
  posture: string;
  action: string;
  attention: string;
}

/**
 * Closes the chat's open scene and opens the next with everyone present, at once: in the same place,
 * or in a new one (created, with everyone's activity moved there) when the place changed. Both the
 * analysis (a hard signal) and the drawer's "End scene" end scenes this way.
 */
export function nextScene(ctx: LogContext, cast: Cast, ending: SceneEnding): EventDraft[] {
  const { db } = ctx;
  const chatId = cast.chatId;
  const scene = db.get<{ id: string; container_id: string | null }>(
    'SELECT sc.id, sc.container_id FROM chat_state s JOIN scenes sc ON sc.chat_id = s.chat_id AND sc.id = s.active_scene_id WHERE s.chat_id = ?',
    [chatId],
  );
  const drafts: EventDraft[] = [];
  if (scene) {
    const peak = db.get<{ s: number | null }>('SELECT max(significance) AS s FROM memories WHERE scene_key = id_key(?) AND chat_id = ?', [scene.id, chatId])?.s ?? 0;
    drafts.push({
      kind: 'scene_closed',
      chatId,
      payload: { sceneId: scene.id, significance: Math.max(peak, ending.significance), reason: ending.reason, fictionTime: ending.fictionTime },
    });
  }
  let containerId =
    scene?.container_id ?? db.get<{ c: string | null }>('SELECT container_id AS c FROM activity WHERE chat_id = ? AND entity = ?', [chatId, cast.hostId])?.c ?? null;
  if (ending.reason === 'place_changed' && ending.newPlace) {
    containerId = ctx.newId();
    drafts.push({ kind: 'container_created', chatId, payload: { containerId, name: ending.newPlace, type: 'place', properties: {}, parentId: null } });
    for (const member of cast.present) {
      const a = db.get<ActivityRow>('SELECT posture, action, attention FROM activity WHERE chat_id = ? AND entity = ?', [chatId, member.ref]);
      drafts.push({
        kind: 'activity_change',
        chatId,
        payload: {
          entity: member.ref,
          containerId,
          slot: '',
          posture: a?.posture ?? 'standing',
          action: a ? (JSON.parse(a.action) as z.infer<typeof action>) : { verb: 'arriving', interruptible: true, requiredAttention: 'low', expectedMinutes: null },
          attention: a?.attention ?? '',
          // Who holds what is kept in items now; moving place does not change it.
          holding: [],
          status: 'present',
        },
      });
    }
  }
  const participants = cast.present.map((m) => m.ref);
  drafts.push({
    kind: 'scene_opened',
    chatId,
    payload: { sceneId: ctx.newId(), containerId, participants: participants.length ? participants : ['you'], fictionTime: ending.fictionTime },
  });
  return drafts;
}
