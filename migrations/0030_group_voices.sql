-- Groups that talk: who answers the player in a chat with guests (named / in turn / everyone in
-- turn / only when asked), and a bot kept present but silent ("Mute <name>"). Both set by hand
-- (manual_edit of chat_state.replyOrder and activity.muted), so they follow rewind, branch and sync.
ALTER TABLE chat_state ADD COLUMN reply_order TEXT NOT NULL DEFAULT 'named';
ALTER TABLE activity ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;
-- The journal restores whole rows: rows it saved before these columns existed get their defaults.
UPDATE projection_journal SET old = json_set(old, '$.reply_order', 'named') WHERE tbl = 'chat_state' AND old IS NOT NULL;
UPDATE projection_journal SET old = json_set(old, '$.muted', 0) WHERE tbl = 'activity' AND old IS NOT NULL;
