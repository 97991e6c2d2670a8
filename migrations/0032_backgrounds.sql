-- Chat backgrounds: a bot's own (from its card's `background` asset, or picked on its page), and a
-- chat's choice over it (chats.background: a picture's hash, 'none', or NULL for the host's own).
-- The chat's choice is a chat event (chat_background_set), so it follows rewind, branch and sync.
ALTER TABLE bots ADD COLUMN background TEXT;
ALTER TABLE chats ADD COLUMN background TEXT;
-- The journal restores whole rows: rows it saved before these columns existed get their defaults.
UPDATE projection_journal SET old = json_set(old, '$.background', NULL) WHERE tbl IN ('bots', 'chats') AND old IS NOT NULL;
