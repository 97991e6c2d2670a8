import { z } from 'zod';
import { defineEvent } from './define.ts';
import { entityId, fictionTime, requiredText, significance } from './fields.ts';

/**
 * Which roles of a chat saw what a memory records. A bot only ever retrieves memories whose flag
 * for the role it plays in the chat is set: that is how it knows nothing it did not witness.
 */
export const witness = z.object({ you: z.boolean(), host: z.boolean(), guest: z.boolean() });

export const memoryWritten = defineEvent({
  kind: 'memory_written',
  scope: 'chat',
  schema: z.object({
    memoryId: entityId,
    ownerId: entityId,
    sceneId: entityId.nullable(),
    summary: requiredText(4_000),
    witness,
    fictionTime,
    source: z.enum(['witnessed', 'told', 'inferred', 'kickoff']),
    reliability: z.number().min(0).max(1),
    significance,
    pinned: z.boolean(),
    autoPinned: z.boolean(),
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO memories (id, owner_id, chat_id, scene_id, summary, witness_you, witness_host, witness_guest,
         fiction_time, source, reliability, significance, pinned, auto_pinned, created_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [
        p.memoryId,
        p.ownerId,
        chatId,
        p.sceneId,
        p.summary,
        p.witness.you,
        p.witness.host,
        p.witness.guest,
        p.fictionTime,
        p.source,
        p.reliability,
        p.significance,
        p.pinned,
        p.pinned && p.autoPinned,
        seq,
      ],
    );
  },
});

export const memorySignificanceSet = defineEvent({
  kind: 'memory_significance_set',
  scope: 'chat',
  schema: z.object({ memoryId: entityId, significance }),
  apply(db, { chatId, payload: p }) {
    db.run('UPDATE memories SET significance = ? WHERE id = ? AND chat_id = ?', [p.significance, p.memoryId, chatId]);
  },
});

/** `auto` tells a pin the engine made (evictable under the cap) from one the user made (never evicted). */
export const memoryPinChanged = defineEvent({
  kind: 'memory_pin_changed',
  scope: 'chat',
  schema: z.object({ memoryId: entityId, pinned: z.boolean(), auto: z.boolean() }),
  apply(db, { chatId, payload: p }) {
    db.run('UPDATE memories SET pinned = ?, auto_pinned = ? WHERE id = ? AND chat_id = ?', [
      p.pinned,
      p.pinned && p.auto,
      p.memoryId,
      chatId,
    ]);
  },
});

export const memorySummaryRewritten = defineEvent({
  kind: 'memory_summary_rewritten',
  scope: 'chat',
  schema: z.object({ memoryId: entityId, summary: requiredText(4_000) }),
  apply(db, { chatId, payload: p }) {
    db.run('UPDATE memories SET summary = ? WHERE id = ? AND chat_id = ?', [p.summary, p.memoryId, chatId]);
  },
});
