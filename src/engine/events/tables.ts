import { TRACKED_TABLES, TRACKED_VALUES, type TrackedTable } from '../state/tracked-values.ts';

/**
 * The tables that are a pure function of the log; `rebuild()` clears and refills them: first
 * `visibility` from the marker events, then the rest from the visible events.
 * Each event kind declares which of them its projection writes, each query which it reads: that
 * is how a change notice reaches exactly the screens it affects.
 */
const CORE_TABLES = [
  'you',
  'bots',
  'chats',
  'chat_state',
  'scenes',
  'activity',
  'edges',
  'edge_facts',
  'memories',
  'transcript',
  'classifier_failures',
  'settings',
  'scene_summaries',
  'visibility',
  'state_edits',
  'images',
  'bot_cards',
  'lorebooks',
  'lore_entries',
  'chat_lorebooks',
  'value_changes',
  'undone_changes',
] as const;

/** The core tables, then each tracked value's (`state/tracked-values.ts`). */
export const PROJECTED_TABLES: readonly ProjectedTable[] = [...CORE_TABLES, ...TRACKED_TABLES];

export type ProjectedTable = (typeof CORE_TABLES)[number] | TrackedTable;

/**
 * Where a projected table's rows are stored, when it is read through a view of its own name: the
 * transcript's rows keep no copy of the words their event holds (migration 0053), and the view
 * `transcript` reads them from the log; the changed values' rows name their chat by number and
 * pack their target (0062), the known facts' keep their pair's ids as bytes (0063), the memories'
 * name their chat by number (0064), and the views `value_changes`, `edge_facts` and `memories`
 * read them as text. Writes, clears and undo go to the rows.
 */
const STORED_AS: Partial<Record<ProjectedTable, string>> = { transcript: 'transcript_rows', value_changes: 'value_change_rows', edge_facts: 'edge_fact_rows', memories: 'memory_rows' };

/** The table a projected table's rows are written to. */
export const storedTable = (table: string): string => STORED_AS[table as ProjectedTable] ?? table;

/**
 * The stored tables whose rows name their chat by its number in the log (`chat_refs`, migration
 * 0057), not by its id: the transcript's rows, the changed values' (0062), the known facts' (0063)
 * and the memories' (0064), the most numerous.
 */
const CHAT_BY_NUMBER: ReadonlySet<string> = new Set(['transcript_rows', 'value_change_rows', 'edge_fact_rows', 'memory_rows']);

/** SQL for what a row of `table` holds in its chat column for the chat whose id is `chatId` (SQL). */
export const chatKeyOf = (table: string, chatId: string): string =>
  CHAT_BY_NUMBER.has(storedTable(table)) ? `(SELECT ref FROM chat_refs WHERE id = ${chatId})` : chatId;

/** SQL for the chat's number in the log (`chat_refs`) that `value` (SQL), read from a row of `table`'s chat column, names. */
export const chatRefOf = (table: string, value: string): string =>
  CHAT_BY_NUMBER.has(storedTable(table)) ? value : `(SELECT ref FROM chat_refs WHERE id = ${value})`;

/**
 * The stored columns kept in fewer bytes than their text (db/compact-functions.ts), each with the
 * SQL function that reads it back and the one that writes it: a turn's id and speaker as 16 bytes
 * (migration 0061), a changed value's target with its ids packed (0062), a known fact's pair as
 * 16 bytes each (0063). JSON holds no bytes, so the journal records them as text.
 */
const COMPACT_COLUMNS: Readonly<Record<string, Readonly<Record<string, readonly [asText: string, fromText: string]>>>> = {
  transcript_rows: { turn_id: ['id_text', 'id_key'], speaker: ['id_text', 'id_key'] },
  value_change_rows: { target: ['payload_json', 'payload_packed'] },
  edge_fact_rows: { source: ['id_text', 'id_key'], target: ['id_text', 'id_key'] },
  memory_rows: { id: ['id_text', 'id_key'], owner_id: ['id_text', 'id_key'], scene_id: ['id_text', 'id_key'] },
};

/** SQL for a stored column's value as text, where its table keeps it compact (`value` is SQL). */
export const columnAsText = (table: string, column: string, value: string): string => {
  const codec = COMPACT_COLUMNS[table]?.[column];
  return codec ? `${codec[0]}(${value})` : value;
};

/** SQL for what a stored column holds for `value` (SQL), read back from `columnAsText`. */
export const columnFromText = (table: string, column: string, value: string): string => {
  const codec = COMPACT_COLUMNS[table]?.[column];
  return codec ? `${codec[1]}(${value})` : value;
};

/** How each projected table names its chat, for rebuilding one chat alone. Global tables are absent. */
export const CHAT_COLUMN: Partial<Record<ProjectedTable, string>> = {
  chats: 'id',
  chat_state: 'chat_id',
  scenes: 'chat_id',
  activity: 'chat_id',
  edges: 'chat_id',
  edge_facts: 'chat',
  memories: 'chat',
  transcript: 'chat',
  classifier_failures: 'chat_id',
  scene_summaries: 'chat_id',
  state_edits: 'chat_id',
  chat_lorebooks: 'chat_id',
  value_changes: 'chat',
  ...Object.fromEntries(TRACKED_VALUES.map((v) => [v.table, v.chatColumn])),
};
