-- A branch shares its history with the story it came from: its turns, memories, scenes and places
-- keep the ids they have in the original. So those rows are keyed within their chat, not across
-- the whole database. Projected tables: rows are copied unchanged, and the journal's keys gain the
-- chat they already record beside them.

CREATE TABLE containers_v2 (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  properties TEXT NOT NULL,                -- JSON object
  parent_id TEXT,
  created_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, id)
) STRICT;
INSERT INTO containers_v2 (chat_id, id, name, type, properties, parent_id, created_seq)
  SELECT chat_id, id, name, type, properties, parent_id, created_seq FROM containers;
DROP TABLE containers;
ALTER TABLE containers_v2 RENAME TO containers;

CREATE TABLE scenes_v2 (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL,
  container_id TEXT,
  participants TEXT NOT NULL,              -- JSON array of entity refs
  opened_seq INTEGER NOT NULL,
  opened_fiction_time TEXT NOT NULL,
  closed_seq INTEGER,
  closed_fiction_time TEXT,
  close_reason TEXT,
  significance INTEGER,
  PRIMARY KEY (chat_id, id)
) STRICT;
INSERT INTO scenes_v2 (chat_id, id, container_id, participants, opened_seq, opened_fiction_time, closed_seq, closed_fiction_time, close_reason, significance)
  SELECT chat_id, id, container_id, participants, opened_seq, opened_fiction_time, closed_seq, closed_fiction_time, close_reason, significance FROM scenes;
DROP TABLE scenes;
ALTER TABLE scenes_v2 RENAME TO scenes;
CREATE INDEX scenes_by_chat ON scenes (chat_id, opened_seq);

CREATE TABLE memories_v2 (
  created_seq INTEGER PRIMARY KEY,         -- the memory_written event; also the FTS rowid, so any
                                           -- rebuild path gives a memory the same index entry
  id TEXT NOT NULL,
  owner_id TEXT NOT NULL,                  -- the bot that remembers
  chat_id TEXT NOT NULL,
  scene_id TEXT,
  summary TEXT NOT NULL,
  witness_you INTEGER NOT NULL,
  witness_host INTEGER NOT NULL,
  witness_guest INTEGER NOT NULL,
  fiction_time TEXT NOT NULL,
  source TEXT NOT NULL,
  reliability REAL NOT NULL,
  significance INTEGER NOT NULL,
  pinned INTEGER NOT NULL,
  auto_pinned INTEGER NOT NULL,
  UNIQUE (chat_id, id)
) STRICT;
INSERT INTO memories_v2 SELECT created_seq, id, owner_id, chat_id, scene_id, summary, witness_you, witness_host, witness_guest,
  fiction_time, source, reliability, significance, pinned, auto_pinned FROM memories;
DROP TABLE memories;
ALTER TABLE memories_v2 RENAME TO memories;
CREATE INDEX memories_by_owner ON memories (owner_id, created_seq);
CREATE INDEX memories_by_chat ON memories (chat_id, created_seq);
CREATE INDEX memories_by_scene ON memories (chat_id, scene_id, owner_id) WHERE scene_id IS NOT NULL;
CREATE INDEX memories_by_owner_chat ON memories (owner_id, chat_id, pinned, created_seq);
-- The FTS index is keyed by created_seq, which did not change; only its triggers went with the table.
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, summary) VALUES (new.created_seq, new.summary);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary) VALUES ('delete', old.created_seq, old.summary);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary) VALUES ('delete', old.created_seq, old.summary);
  INSERT INTO memories_fts (rowid, summary) VALUES (new.created_seq, new.summary);
END;

CREATE TABLE transcript_v2 (
  chat_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  seq INTEGER NOT NULL,                    -- the event that opened the turn
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  speaker TEXT NOT NULL,                   -- 'you' or a bot id
  text TEXT NOT NULL,
  segments TEXT,                           -- JSON, user turns only
  status TEXT NOT NULL CHECK (status IN ('streaming', 'done', 'truncated')),
  reason TEXT,
  model TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  finished_seq INTEGER,
  error TEXT,
  analyzed_seq INTEGER,
  edited INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, turn_id)
) STRICT;
INSERT INTO transcript_v2 (chat_id, turn_id, seq, role, speaker, text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden)
  SELECT chat_id, turn_id, seq, role, speaker, text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden FROM transcript;
DROP TABLE transcript;
ALTER TABLE transcript_v2 RENAME TO transcript;
CREATE UNIQUE INDEX transcript_by_chat ON transcript (chat_id, seq);
CREATE INDEX transcript_unanalyzed ON transcript (chat_id, seq) WHERE role = 'assistant' AND analyzed_seq IS NULL;

CREATE TABLE scene_summaries_v2 (
  chat_id TEXT NOT NULL,
  scene_id TEXT NOT NULL,
  owner_id TEXT NOT NULL,                  -- the witness whose point of view was summarised
  seq INTEGER NOT NULL,                    -- the scene_summarized event
  ok INTEGER NOT NULL,                     -- 0 when the classifier failed and the turn memories stayed
  PRIMARY KEY (chat_id, scene_id, owner_id)
) STRICT;
INSERT INTO scene_summaries_v2 (chat_id, scene_id, owner_id, seq, ok) SELECT chat_id, scene_id, owner_id, seq, ok FROM scene_summaries;
DROP TABLE scene_summaries;
ALTER TABLE scene_summaries_v2 RENAME TO scene_summaries;

UPDATE projection_journal SET key = json_set(key, '$.chat_id', chat_id)
  WHERE tbl IN ('containers', 'scenes', 'transcript', 'scene_summaries');

-- The scratch buffer of replies being written follows: a continued reply in a branch is the same
-- turn as in its original.
CREATE TABLE stream_checkpoints_v2 (
  chat_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  text TEXT NOT NULL,
  updated_ts INTEGER NOT NULL,
  PRIMARY KEY (chat_id, turn_id)
) STRICT;
INSERT INTO stream_checkpoints_v2 (chat_id, turn_id, text, updated_ts) SELECT chat_id, turn_id, text, updated_ts FROM stream_checkpoints;
DROP TABLE stream_checkpoints;
ALTER TABLE stream_checkpoints_v2 RENAME TO stream_checkpoints;

-- From which seq on a chat's projection journal is complete. A branch's copied stretch is projected
-- by copying rows, not journaled; a tail rebuild reaching behind the horizon replays the whole chat.
CREATE TABLE journal_horizon (
  chat_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
) STRICT;
