/**
 * The kinds the log is searched by, kind first: few in any log (a purge, a bot's reset, a rewind),
 * looked up across chats or walked whole. `events_by_kind` holds only these (migration 0048): the
 * kinds of every turn (a reply, its analysis) wrote a page of it in each commit, in the middle of
 * the index where a split rewrites its neighbours too, for queries that never asked.
 *
 * SQLite uses a partial index only for a query that states its condition: a search by one of these
 * kinds says `rareKind()` beside its own term. Changing the list takes a migration that rebuilds the
 * index with the same words (a test holds the two together).
 */
export const RARE_KINDS = [
  'purged',
  'chat_created',
  'bot_authored',
  'you_authored',
  'bot_reset',
  'bot_reset_undone',
  'bot_deleted',
  'bot_restored',
  'card_kept',
  'lore_entry_saved',
  'image_added',
  'chat_background_set',
  'reply_version_chosen',
  'chat_rewound',
  'rewind_undone',
  'manual_edit',
] as const;

/** The partial index's condition, for `alias` (`e` in `FROM events e`). */
export const rareKind = (alias?: string): string => `${alias ? `${alias}.` : ''}kind IN (${RARE_KINDS.map((k) => `'${k}'`).join(', ')})`;
