-- A bot's pronouns, asked like yours; bots authored before have none ('').
ALTER TABLE bots ADD COLUMN pronouns TEXT NOT NULL DEFAULT '';
-- The journal restores whole rows: ones saved before this column get its default.
UPDATE projection_journal SET old = json_set(old, '$.pronouns', '') WHERE tbl = 'bots' AND old IS NOT NULL;
