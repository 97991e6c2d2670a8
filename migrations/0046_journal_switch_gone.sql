-- The projection journal's switch is a value of the connection now (`journal_seq()`, registered by
-- the engine's SQLite adapter): setting it in a row and clearing it wrote that row's page to disk in
-- every commit that projected an event. The triggers reading the row are rewritten to read the
-- function when the database opens (`ensureJournal`), which follows the migrations.
DROP TABLE journal_switch;
