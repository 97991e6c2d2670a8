-- Fields of the player's own (issue 33, part 4): a chat's tracked fields (a name, a line telling the
-- model what it means, a type and its range or choices, per character or for the chat) and their
-- values, filled by the one analysis call per reply. Tracked values (state/fields.ts). A bot keeps
-- the fields its chats start with (bots.tracked_fields), which go with its character card.
CREATE TABLE field_defs (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  about TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL,
  per TEXT NOT NULL,
  min REAL,
  max REAL,
  choices TEXT NOT NULL DEFAULT '[]',
  removed INTEGER NOT NULL DEFAULT 0,
  defined_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, id)
) STRICT;
CREATE TABLE field_values (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL, -- field_id:owner
  field_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  value TEXT NOT NULL,
  set_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, id)
) STRICT;
ALTER TABLE bots ADD COLUMN tracked_fields TEXT NOT NULL DEFAULT '[]';
