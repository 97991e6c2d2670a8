-- What a character knows of another names its chat by number, and the two of them by their ids'
-- 16 bytes (issue 38: storage against the text of the messages).
--
-- A fact's row held its chat's id and the two characters' (36 characters each, 'you' for the
-- player), and its key's index held them again: ~190 bytes a fact before its words. A reply's
-- analysis often adds one, so at 10,000 turns analysed they took 1.5 MB. The rows now name the
-- chat by its number (`chat_refs`) and keep the ids through `id_key` (migration 0061); the view
-- `edge_facts` reads them as before, and a query that finds a pair's facts compares the rows'
-- columns with `id_key(?)`, which the key's index serves.
-- The journal's records of these rows are renamed for the rows' table, and name the chat by number.
-- rewrites: edge_facts
INSERT INTO chat_refs (id) SELECT DISTINCT f.chat_id FROM edge_facts f WHERE NOT EXISTS (SELECT 1 FROM chat_refs c WHERE c.id = f.chat_id);

CREATE TABLE edge_fact_rows (
  chat INTEGER NOT NULL,                   -- chat_refs
  source ANY NOT NULL,                     -- id_key of a bot id or 'you' (read through id_text)
  target ANY NOT NULL,                     -- the same
  fact_key TEXT NOT NULL,
  fact TEXT NOT NULL,
  added_seq INTEGER NOT NULL,
  PRIMARY KEY (chat, source, target, fact_key)
) STRICT;

-- In the order they were added (a pair's facts read by seq, then by rowid).
INSERT INTO edge_fact_rows (chat, source, target, fact_key, fact, added_seq)
  SELECT c.ref, id_key(f.source), id_key(f.target), f.fact_key, f.fact, f.added_seq
  FROM edge_facts f JOIN chat_refs c ON c.id = f.chat_id ORDER BY f.rowid;

-- Dropping the rows drops their journal's triggers: the app writes them afresh as it opens.
DROP TABLE edge_facts;

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
CREATE VIEW edge_facts AS
  SELECT c.id AS chat_id, id_text(r.source) AS source, id_text(r.target) AS target, r.fact_key, r.fact, r.added_seq
  FROM edge_fact_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;

UPDATE projection_journal
  SET tbl = 'edge_fact_rows',
      key = json_set(json_remove(key, '$.chat_id'), '$.chat', chat),
      old = CASE WHEN old IS NULL OR json_type(old, '$.chat_id') IS NULL THEN old
                 ELSE json_set(json_remove(old, '$.chat_id'), '$.chat', chat) END
  WHERE tbl = 'edge_facts';
