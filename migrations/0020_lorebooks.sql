-- Lorebooks of their own (imported world info), their entries as the player edited them, and the
-- chats each is attached to. A bot's card lorebook stays in its kept card: lore_entries holds only
-- the entries the player changed (book_id is then the bot's id).
CREATE TABLE lorebooks (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,                    -- the lorebook_added event
  name TEXT NOT NULL,
  format TEXT NOT NULL,                    -- sillytavern / lorebook_v3 / character_book
  settings TEXT NOT NULL                   -- JSON: scanDepth, tokenBudget, recursive, maxRecursion
) STRICT;
CREATE TABLE lore_entries (
  book_id TEXT NOT NULL,                   -- a lorebook's id, or a bot's for its card's book
  position INTEGER NOT NULL,
  entry TEXT NOT NULL,                     -- JSON LoreEntry
  edited_seq INTEGER,                      -- the last lore_entry_saved; NULL as imported
  PRIMARY KEY (book_id, position)
) STRICT;
CREATE TABLE chat_lorebooks (
  chat_id TEXT NOT NULL,
  lorebook_id TEXT NOT NULL,
  PRIMARY KEY (chat_id, lorebook_id)
) STRICT;
