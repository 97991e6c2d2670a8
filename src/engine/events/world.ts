import { z } from 'zod';
import { defineEvent, json } from './define.ts';
import { uuid, entityRef, fictionTime, requiredText, shortText, significance } from './fields.ts';
import { clearEditMarks, editKey } from './edit-marks.ts';
import { changeKey, type ValueChange } from './define.ts';
import { heldItemId, insertItem } from '../state/items.ts';

export const action = z.object({
  verb: shortText(80),
  interruptible: z.boolean(),
  requiredAttention: z.enum(['none', 'low', 'medium', 'high']),
  expectedMinutes: z.number().int().min(0).max(60 * 24 * 30).nullable(),
});

const activitySchema = z.object({
  entity: entityRef,
  containerId: uuid.nullable(),
  slot: shortText(80),
  posture: shortText(80),
  action,
  attention: shortText(200),
  holding: z.array(z.string().trim().min(1).max(80)).max(10),
  status: z.enum(['present', 'away', 'asleep', 'unconscious']),
});

/** What one entity is doing now. Each change states the whole activity, never a patch. */
export const activityChange = defineEvent({
  kind: 'activity_change',
  writes: ['activity', 'state_edits', 'items'],
  scope: 'chat',
  schema: activitySchema,
  apply(db, { seq, chatId, payload }) {
    // A part the player took back ("Undo this change") comes as null: the one before stays.
    const p = payload as KeptActivity;
    db.run(
      `INSERT INTO activity (chat_id, entity, container_id, slot, posture, action, attention, holding, status, updated_seq)
       VALUES (?1, ?2, ?3, coalesce(?4, ''), coalesce(?5, ''), coalesce(?6, ?11), coalesce(?7, ''), ?8, ?9, ?10)
       ON CONFLICT (chat_id, entity) DO UPDATE SET container_id = CASE WHEN ?4 IS NULL THEN activity.container_id ELSE excluded.container_id END,
         slot = coalesce(?4, activity.slot), posture = coalesce(?5, activity.posture), action = coalesce(?6, activity.action),
         attention = coalesce(?7, activity.attention), holding = excluded.holding, status = excluded.status, updated_seq = excluded.updated_seq`,
      [chatId, p.entity, p.containerId, p.slot, p.posture, p.action === null ? null : json(p.action), p.attention, json(p.holding), p.status, seq, json(IDLE)],
    );
    // An older log's "holding" list: the same things as items, the one truth of who holds what.
    for (const name of p.holding) insertItem(db, chatId, { id: heldItemId(p.entity, name), name, holder: p.entity, where: '', state: '' }, seq);
    const partly = ACTIVITY_PARTS.some((part) => p[PART_FIELD[part]] === null);
    clearEditMarks(db, chatId, { type: 'activity', entity: p.entity }, partly ? ACTIVITY_PARTS.filter((part) => p[PART_FIELD[part]] !== null) : undefined);
  },
  changes(p): ValueChange[] {
    const target = editKey({ type: 'activity', entity: p.entity });
    return [
      { target, field: 'slot', how: 'set', value: p.slot },
      { target, field: 'posture', how: 'set', value: p.posture },
      { target, field: 'doing', how: 'set', value: p.action.verb },
      { target, field: 'attention', how: 'set', value: p.attention },
    ];
  },
  without(p, undone): z.infer<typeof activitySchema> {
    const target = editKey({ type: 'activity', entity: p.entity });
    const kept: KeptActivity = { ...p };
    for (const part of ACTIVITY_PARTS) if (undone.has(changeKey({ target, field: part }))) kept[PART_FIELD[part]] = null;
    return kept as z.infer<typeof activitySchema>;
  },
});

/** The parts of an activity shown and undone apart, and the payload field each lives in. */
const ACTIVITY_PARTS = ['slot', 'posture', 'doing', 'attention'] as const;
const PART_FIELD = { slot: 'slot', posture: 'posture', doing: 'action', attention: 'attention' } as const;
const IDLE = { verb: '', interruptible: true, requiredAttention: 'none', expectedMinutes: null };
type KeptActivity = Omit<z.infer<typeof activitySchema>, 'slot' | 'posture' | 'action' | 'attention'> & {
  slot: string | null;
  posture: string | null;
  action: z.infer<typeof action> | null;
  attention: string | null;
};

export const sceneOpened = defineEvent({
  kind: 'scene_opened',
  writes: ['scenes', 'chat_state'],
  scope: 'chat',
  schema: z.object({
    sceneId: uuid,
    containerId: uuid.nullable(),
    participants: z.array(entityRef).min(1).max(20),
    fictionTime,
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO scenes (id, chat_id, container_id, participants, opened_seq, opened_fiction_time)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id, id) DO NOTHING`,
      [p.sceneId, chatId, p.containerId, json(p.participants), seq, p.fictionTime],
    );
    db.run('UPDATE chat_state SET active_scene_id = ? WHERE chat_id = ?', [p.sceneId, chatId]);
  },
});

export const sceneClosed = defineEvent({
  kind: 'scene_closed',
  writes: ['scenes', 'chat_state'],
  scope: 'chat',
  schema: z.object({
    sceneId: uuid,
    significance,
    reason: z.enum(['place_changed', 'parting', 'time_skip', 'manual']),
    fictionTime,
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `UPDATE scenes SET closed_seq = ?, closed_fiction_time = ?, close_reason = ?, significance = ?
       WHERE id = ? AND chat_id = ?`,
      [seq, p.fictionTime, p.reason, p.significance, p.sceneId, chatId],
    );
    db.run('UPDATE chat_state SET active_scene_id = NULL WHERE chat_id = ? AND active_scene_id = ?', [
      chatId,
      p.sceneId,
    ]);
  },
});
