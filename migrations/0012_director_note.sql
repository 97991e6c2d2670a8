-- A chat's director's note: the player's standing instruction to the narrator, set by hand in the
-- drawer (a manual_edit of chat_state.directorNote) and told near the end of every prompt.
ALTER TABLE chat_state ADD COLUMN director_note TEXT NOT NULL DEFAULT '';
-- The journal restores whole rows: rows it saved before this column existed get its default, so
-- undoing one of their changes does not write NULL into it.
UPDATE projection_journal SET old = json_set(old, '$.director_note', '') WHERE tbl = 'chat_state' AND old IS NOT NULL;
