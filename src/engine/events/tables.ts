/**
 * The tables that are a pure function of the log; `rebuild()` clears and refills them: first
 * `visibility` from the marker events, then the rest from the visible events.
 * Each event kind declares which of them its projection writes, each query which it reads: that
 * is how a change notice reaches exactly the screens it affects.
 */
export const PROJECTED_TABLES = [
  'you',
  'bots',
  'chats',
  'chat_state',
  'containers',
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
] as const;

export type ProjectedTable = (typeof PROJECTED_TABLES)[number];
