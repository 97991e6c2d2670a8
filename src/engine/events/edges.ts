import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineEvent } from './define.ts';
import { entityRef, fictionTime, shortText } from './fields.ts';
import { clearEditMarks, editKey } from './edit-marks.ts';
import { changeKey, type ValueChange } from './define.ts';
import { chatKeyOf } from './tables.ts';

export const EDGE_DEFAULT = 50;

/** Facts count as the same when they differ only in case, spacing or a final full stop. */
export const factKey = (fact: string) =>
  fact
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.!?]+$/, '')
    .trim();

export function addFacts(db: Db, chatId: string | null, source: string, target: string, facts: readonly string[], seq: number) {
  for (const fact of facts) {
    const key = factKey(fact);
    if (!key) continue;
    db.run(
      `INSERT INTO edge_fact_rows (chat, source, target, fact_key, fact, added_seq) VALUES (${chatKeyOf('edge_facts', '?')}, id_key(?), id_key(?), ?, ?, ?)
       ON CONFLICT DO NOTHING`,
      [chatId, source, target, key, fact.trim(), seq],
    );
  }
}

/** How `source` feels about and what it knows of `target`, in this chat. Directed: A->B is not B->A. */
export const edgeUpdate = defineEvent({
  kind: 'edge_update',
  writes: ['edges', 'edge_facts', 'state_edits'],
  scope: 'chat',
  schema: z
    .object({
      source: entityRef,
      target: entityRef,
      affinityDelta: z.number().min(-100).max(100),
      trustDelta: z.number().min(-100).max(100),
      facts: z.array(z.string().trim().min(1).max(500)).max(20),
      lastInteraction: fictionTime.nullable(),
    })
    .refine((p) => p.source !== p.target, { message: 'an edge joins two different entities', path: ['target'] }),
  apply(db, { seq, chatId, payload: p }) {
    // Scores start at 50 and stay within 0..100 however large the deltas add up.
    db.run(
      `INSERT INTO edges (chat_id, source, target, affinity, trust, summary, last_interaction, updated_seq)
       VALUES (?1, ?2, ?3, max(0.0, min(100.0, ?4 + ?5)), max(0.0, min(100.0, ?4 + ?6)), '', ?7, ?8)
       ON CONFLICT (chat_id, source, target) DO UPDATE SET
         affinity = max(0.0, min(100.0, edges.affinity + ?5)),
         trust = max(0.0, min(100.0, edges.trust + ?6)),
         last_interaction = coalesce(?7, edges.last_interaction),
         updated_seq = ?8`,
      [chatId, p.source, p.target, EDGE_DEFAULT, p.affinityDelta, p.trustDelta, p.lastInteraction, seq],
    );
    addFacts(db, chatId, p.source, p.target, p.facts, seq);
    if (p.affinityDelta || p.trustDelta || p.facts.length) clearEditMarks(db, chatId, { type: 'edge', source: p.source, target: p.target }, ['affinity', 'trust', 'knowledge']);
  },
  changes(p): ValueChange[] {
    const target = editKey({ type: 'edge', source: p.source, target: p.target });
    const changes: ValueChange[] = [];
    if (p.affinityDelta) changes.push({ target, field: 'affinity', how: 'delta', value: p.affinityDelta });
    if (p.trustDelta) changes.push({ target, field: 'trust', how: 'delta', value: p.trustDelta });
    for (const fact of p.facts) changes.push({ target, field: 'knowledge', part: factKey(fact), how: 'add', value: fact });
    return changes;
  },
  without(p, undone) {
    const target = editKey({ type: 'edge', source: p.source, target: p.target });
    const kept = (field: string, part?: string) => !undone.has(changeKey({ target, field, part }));
    return {
      ...p,
      affinityDelta: kept('affinity') ? p.affinityDelta : 0,
      trustDelta: kept('trust') ? p.trustDelta : 0,
      facts: p.facts.filter((fact) => kept('knowledge', factKey(fact))),
    };
  },
});

export const edgeSummaryRewritten = defineEvent({
  kind: 'edge_summary_rewritten',
  writes: ['edges', 'state_edits'],
  scope: 'chat',
  schema: z.object({ source: entityRef, target: entityRef, summary: shortText(4_000) }),
  apply(db, { seq, chatId, payload: p }) {
    clearEditMarks(db, chatId, { type: 'edge', source: p.source, target: p.target }, ['summary']);
    db.run(
      `INSERT INTO edges (chat_id, source, target, affinity, trust, summary, last_interaction, updated_seq)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?)
       ON CONFLICT (chat_id, source, target) DO UPDATE SET summary = excluded.summary, updated_seq = excluded.updated_seq`,
      [chatId, p.source, p.target, EDGE_DEFAULT, EDGE_DEFAULT, p.summary, seq],
    );
  },
  changes: (p): ValueChange[] => [{ target: editKey({ type: 'edge', source: p.source, target: p.target }), field: 'summary', how: 'set', value: p.summary }],
  without: () => null,
});
