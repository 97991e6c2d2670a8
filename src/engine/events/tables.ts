/**
 * The tables that are a pure function of the visible events; `rebuild()` clears and refills them.
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
] as const;

export type ProjectedTable = (typeof PROJECTED_TABLES)[number];
