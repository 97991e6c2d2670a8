import { z } from 'zod';
import { defineEvent, json } from './define.ts';
import { uuid, entityRef, fictionTime, requiredText, shortText, significance } from './fields.ts';
import { clearEditMarks } from './edit-marks.ts';

export const action = z.object({
  verb: shortText(80),
  interruptible: z.boolean(),
  requiredAttention: z.enum(['none', 'low', 'medium', 'high']),
  expectedMinutes: z.number().int().min(0).max(60 * 24 * 30).nullable(),
});

/** What one entity is doing now. Each change states the whole activity, never a patch. */
export const activityChange = defineEvent({
  kind: 'activity_change',
  writes: ['activity', 'state_edits'],
  scope: 'chat',
  schema: z.object({
    entity: entityRef,
    containerId: uuid.nullable(),
    slot: shortText(80),
    posture: shortText(80),
    action,
    attention: shortText(200),
    holding: z.array(z.string().trim().min(1).max(80)).max(10),
    status: z.enum(['present', 'away', 'asleep', 'unconscious']),
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO activity (chat_id, entity, container_id, slot, posture, action, attention, holding, status, updated_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id, entity) DO UPDATE SET container_id = excluded.container_id, slot = excluded.slot,
         posture = excluded.posture, action = excluded.action, attention = excluded.attention,
         holding = excluded.holding, status = excluded.status, updated_seq = excluded.updated_seq`,
      [chatId, p.entity, p.containerId, p.slot, p.posture, json(p.action), p.attention, json(p.holding), p.status, seq],
    );
    clearEditMarks(db, chatId, { type: 'activity', entity: p.entity });
  },
});

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
