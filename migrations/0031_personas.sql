-- Several "you"s (personas): the first is the row 'you'; the others have ids of their own. One is
-- the default (is_default, else 'you'); a chat may choose its own (chats.persona_id, a chat event,
-- so it follows rewind, branch and sync), and each line the player wrote keeps who wrote it
-- (transcript.persona_id; none: the default). A removed persona stays for the lines it wrote.
CREATE TABLE you_personas (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  pronouns TEXT NOT NULL,
  persona TEXT NOT NULL,
  updated_seq INTEGER NOT NULL,
  avatar TEXT,
  is_default INTEGER NOT NULL DEFAULT 0,
  removed INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO you_personas (id, name, pronouns, persona, updated_seq, avatar) SELECT id, name, pronouns, persona, updated_seq, avatar FROM you;
DROP TABLE you;
ALTER TABLE you_personas RENAME TO you;
ALTER TABLE chats ADD COLUMN persona_id TEXT;
ALTER TABLE transcript ADD COLUMN persona_id TEXT;
-- The journal restores whole rows: rows it saved before these columns existed get their defaults.
UPDATE projection_journal SET old = json_set(old, '$.persona_id', NULL) WHERE tbl IN ('chats', 'transcript') AND old IS NOT NULL;
UPDATE projection_journal SET old = json_set(old, '$.is_default', 0, '$.removed', 0) WHERE tbl = 'you' AND old IS NOT NULL;
