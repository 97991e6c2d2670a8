/** A bot's memory as the drawer, the prompt and retrieval read it. */
export interface Memory {
  id: string;
  ownerId: string;
  sceneId: string | null;
  summary: string;
  /** Words a later question may use that the summary does not: people, places, objects, plainer words. */
  keywords: string;
  witness: { you: boolean; host: boolean; guest: boolean };
  fictionTime: string;
  source: string;
  reliability: number;
  significance: number;
  pinned: boolean;
  autoPinned: boolean;
  /** Log order of the memory_written event: newer memories have larger values. */
  seq: number;
}

/** The role someone plays in a chat; a memory's witness flag for that role decides what they know. */
export type ChatRole = 'you' | 'host' | 'guest';

export const MEMORY_COLUMNS = `m.created_seq, id_text(m.id) AS id, id_text(m.owner_id) AS owner_id, id_text(m.scene_id) AS scene_id, m.summary, m.keywords, m.witness_you, m.witness_host,
  m.witness_guest, m.fiction_time, m.source, m.reliability, m.significance, m.pinned, m.auto_pinned`;

export interface MemoryRow {
  created_seq: number;
  id: string;
  owner_id: string;
  scene_id: string | null;
  summary: string;
  keywords: string;
  witness_you: number;
  witness_host: number;
  witness_guest: number;
  fiction_time: string;
  source: string;
  reliability: number;
  significance: number;
  pinned: number;
  auto_pinned: number;
}

export const toMemory = (r: MemoryRow): Memory => ({
  id: r.id,
  ownerId: r.owner_id,
  sceneId: r.scene_id,
  summary: r.summary,
  keywords: r.keywords,
  witness: { you: r.witness_you === 1, host: r.witness_host === 1, guest: r.witness_guest === 1 },
  fictionTime: r.fiction_time,
  source: r.source,
  reliability: r.reliability,
  significance: r.significance,
  pinned: r.pinned === 1,
  autoPinned: r.auto_pinned === 1,
  seq: r.created_seq,
});

/**
 * The SQL condition "the role witnessed it". A fixed column per role, never interpolated from
 * input: this one line is what keeps a bot from knowing what it did not see.
 */
export const WITNESSED_BY: Record<ChatRole, string> = {
  you: 'm.witness_you = 1',
  host: 'm.witness_host = 1',
  guest: 'm.witness_guest = 1',
};
