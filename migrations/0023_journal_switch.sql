-- The projection journal's switch, in the database instead of a temp table: the journal's triggers
-- can then live in the schema too (a trigger of the main schema cannot read a temp table), and a
-- connection no longer builds three dozen temp triggers before its first write. The engine checks
-- the triggers against the tables' columns when it opens the database and puts back any that
-- differ (`ensureJournal`). seq: the event whose projection is being recorded, or NULL.
CREATE TABLE journal_switch (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  seq INTEGER
) STRICT;
INSERT INTO journal_switch (only, seq) VALUES (1, NULL);
