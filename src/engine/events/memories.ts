import { z } from 'zod';
import { defineEvent, type ValueChange } from './define.ts';
import { uuid, fictionTime, requiredText, significance } from './fields.ts';
import { clearEditMarks, editKey } from './edit-marks.ts';
import { chatKeyOf } from './tables.ts';

/**
 * Which roles of a chat saw what a memory records. A bot only ever retrieves memories whose flag
 * for the role it plays in the chat is set: that is how it knows nothing it did not witness.
 */
export const witness = z.object({ you: z.boolean(), host: z.boolean(), guest: z.boolean() });

export const memoryWritten = defineEvent({
  kind: 'memory_written',
  writes: ['memories'],
  scope: 'chat',
  schema: z.object({
    memoryId: uuid,
    ownerId: uuid,
    sceneId: uuid.nullable(),
    summary: requiredText(4_000),
    /** Comma-separated words a question in other words may use: see migration 0022. */
    keywords: z.string().max(2_000).optional(),
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
      `INSERT INTO memory_rows (id, owner_id, chat, scene_id, summary, keywords, witness_you, witness_host, witness_guest,
         fiction_time, source, reliability, significance, pinned, auto_pinned, created_seq)
       VALUES (id_key(?), id_key(?), ${chatKeyOf('memories', '?')}, id_key(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chat, id) DO NOTHING`,
      [
        p.memoryId,
        p.ownerId,
        chatId,
        p.sceneId,
        p.summary,
        p.keywords ?? '',
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
  changes: (p): ValueChange[] => [{ target: editKey({ type: 'memory', id: p.memoryId }), field: 'summary', how: 'create', value: p.summary }],
  without: () => null,
});

export const memorySignificanceSet = defineEvent({
  kind: 'memory_significance_set',
  writes: ['memories', 'state_edits'],
  scope: 'chat',
  schema: z.object({ memoryId: uuid, significance }),
  apply(db, { chatId, payload: p }) {
    clearEditMarks(db, chatId, { type: 'memory', id: p.memoryId }, ['significance']);
    db.run(`UPDATE memory_rows SET significance = ? WHERE id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [p.significance, p.memoryId, chatId]);
  },
  changes: (p): ValueChange[] => [{ target: editKey({ type: 'memory', id: p.memoryId }), field: 'significance', how: 'set', value: p.significance }],
  without: () => null,
});

/** `auto` tells a pin the engine made (evictable under the cap) from one the user made (never evicted). */
export const memoryPinChanged = defineEvent({
  kind: 'memory_pin_changed',
  writes: ['memories'],
  scope: 'chat',
  schema: z.object({ memoryId: uuid, pinned: z.boolean(), auto: z.boolean() }),
  apply(db, { chatId, payload: p }) {
    db.run(`UPDATE memory_rows SET pinned = ?, auto_pinned = ? WHERE id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [
      p.pinned,
      p.pinned && p.auto,
      p.memoryId,
      chatId,
    ]);
  },
});

/**
 * A memory's text is replaced: by a manual correction, or by a witness's scene summary. A summary
 * also absorbs the scene's other everyday memories of that owner (their text lives on in it), so
 * retrieval finds one entry per scene instead of a dozen fragments. The witness flags and keywords
 * of what was absorbed carry over: a summary is witnessed by anyone who witnessed a part of it, and
 * found by the words any part of it was found by.
 */
export const memorySummaryRewritten = defineEvent({
  kind: 'memory_summary_rewritten',
  writes: ['memories', 'state_edits'],
  scope: 'chat',
  schema: z.object({ memoryId: uuid, summary: requiredText(4_000), absorbs: z.array(uuid).max(1_000).optional() }),
  apply(db, { chatId, payload: p }) {
    clearEditMarks(db, chatId, { type: 'memory', id: p.memoryId }, ['summary']);
    db.run(`UPDATE memory_rows SET summary = ? WHERE id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [p.summary, p.memoryId, chatId]);
    if (!p.absorbs?.length) return;
    const absorbed = JSON.stringify(p.absorbs.filter((id) => id !== p.memoryId));
    const chat = chatKeyOf('memories', '?1');
    const sameOwner = `chat = ${chat} AND id IN (SELECT id_key(value) FROM json_each(?2))
      AND owner_id = (SELECT owner_id FROM memory_rows WHERE id = id_key(?3) AND chat = ${chat})`;
    db.run(
      `UPDATE memory_rows SET
         witness_you = max(witness_you, coalesce((SELECT max(witness_you) FROM memory_rows WHERE ${sameOwner}), 0)),
         witness_host = max(witness_host, coalesce((SELECT max(witness_host) FROM memory_rows WHERE ${sameOwner}), 0)),
         witness_guest = max(witness_guest, coalesce((SELECT max(witness_guest) FROM memory_rows WHERE ${sameOwner}), 0))
       WHERE id = id_key(?3) AND chat = ${chat}`,
      [chatId, absorbed, p.memoryId],
    );
    // The scene's turn memories share most of their keywords (its place, who was there): each once.
    const lists = db.all<{ keywords: string }>(
      `SELECT keywords FROM memory_rows WHERE id = id_key(?3) AND chat = ${chat} UNION ALL SELECT keywords FROM memory_rows WHERE ${sameOwner} AND keywords <> ''`,
      [chatId, absorbed, p.memoryId],
    );
    db.run(`UPDATE memory_rows SET keywords = ? WHERE id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [distinctKeywords(lists.map((l) => l.keywords)), p.memoryId, chatId]);
    db.run(`DELETE FROM memory_rows WHERE ${sameOwner}`, [chatId, absorbed, p.memoryId]);
  },
});

/** Comma-separated keyword lists as one, each keyword once (the first spelling kept), within 2,000 characters. */
export function distinctKeywords(lists: readonly string[]): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  let length = 0;
  for (const word of lists.flatMap((list) => list.split(','))) {
    const text = word.trim();
    const key = text.toLowerCase();
    if (!text || seen.has(key)) continue;
    if (length + text.length + 2 > 2_000) break;
    seen.add(key);
    kept.push(text);
    length += text.length + 2;
  }
  return kept.join(', ');
}
