-- Values the player changed by hand in the drawer (manual_edit), for the "edited by you" mark. A
-- mark goes when the story itself changes that value again (the analysis moving a feeling, ...).
CREATE TABLE state_edits (
  chat_id TEXT NOT NULL,
  target TEXT NOT NULL,                    -- what was edited: 'edge:<source>:<target>', 'memory:<id>', ...
  field TEXT NOT NULL,
  seq INTEGER NOT NULL,                    -- the manual_edit
  PRIMARY KEY (chat_id, target, field)
) STRICT;
