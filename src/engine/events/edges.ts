import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineEvent, json } from './define.ts';
import { entityRef, fictionTime, shortText } from './fields.ts';

export const EDGE_DEFAULT = 50;
const clamp = (value: number) => Math.min(100, Math.max(0, value));

/** Facts count as the same when they differ only in case, spacing or a final full stop. */
export const factKey = (fact: string) =>
  fact
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.!?]+$/, '')
    .trim();

export function mergeFacts(known: readonly string[], added: readonly string[]): string[] {
  const merged = [...known];
  const seen = new Set(known.map(factKey));
  for (const fact of added) {
    const key = factKey(fact);
    if (key && !seen.has(key)) {
      seen.add(key);
      merged.push(fact.trim());
    }
  }
  return merged;
}

interface EdgeRow {
  affinity: number;
  trust: number;
  knowledge: string;
}

function readEdge(db: Db, chatId: string | null, source: string, target: string): EdgeRow | undefined {
  return db.get<EdgeRow>('SELECT affinity, trust, knowledge FROM edges WHERE chat_id = ? AND source = ? AND target = ?', [
    chatId,
    source,
    target,
  ]);
}

/** How `source` feels about and what it knows of `target`, in this chat. Directed: A->B is not B->A. */
export const edgeUpdate = defineEvent({
  kind: 'edge_update',
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
    const edge = readEdge(db, chatId, p.source, p.target);
    const knowledge = mergeFacts(edge ? (JSON.parse(edge.knowledge) as string[]) : [], p.facts);
    db.run(
      `INSERT INTO edges (chat_id, source, target, affinity, trust, knowledge, summary, last_interaction, updated_seq)
       VALUES (?, ?, ?, ?, ?, ?, '', ?, ?)
       ON CONFLICT (chat_id, source, target) DO UPDATE SET affinity = excluded.affinity, trust = excluded.trust,
         knowledge = excluded.knowledge, updated_seq = excluded.updated_seq,
         last_interaction = coalesce(excluded.last_interaction, edges.last_interaction)`,
      [
        chatId,
        p.source,
        p.target,
        clamp((edge?.affinity ?? EDGE_DEFAULT) + p.affinityDelta),
        clamp((edge?.trust ?? EDGE_DEFAULT) + p.trustDelta),
        json(knowledge),
        p.lastInteraction,
        seq,
      ],
    );
  },
});

export const edgeSummaryRewritten = defineEvent({
  kind: 'edge_summary_rewritten',
  scope: 'chat',
  schema: z.object({ source: entityRef, target: entityRef, summary: shortText(4_000) }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO edges (chat_id, source, target, affinity, trust, knowledge, summary, last_interaction, updated_seq)
       VALUES (?, ?, ?, ?, ?, '[]', ?, NULL, ?)
       ON CONFLICT (chat_id, source, target) DO UPDATE SET summary = excluded.summary, updated_seq = excluded.updated_seq`,
      [chatId, p.source, p.target, EDGE_DEFAULT, EDGE_DEFAULT, p.summary, seq],
    );
  },
});
