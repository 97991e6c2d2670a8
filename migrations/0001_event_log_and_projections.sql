-- THE EVENT LOG. Everything else in this file is a projection of it and can be rebuilt at will;
-- the log is the one thing that must never be damaged. Events are never deleted or rewritten:
-- only the superseded_by / hidden_by markers change (regenerate, rewind, undo).
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,                 -- local order
  id TEXT NOT NULL UNIQUE,                 -- UUIDv7, globally unique, so logs can one day merge
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat_id TEXT,                            -- null for global events
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  cause_seq INTEGER,                       -- the event that caused this derived one
  superseded_by INTEGER,                   -- set by a regenerate
  hidden_by INTEGER                        -- set by a rewind, cleared by its undo
) STRICT;
CREATE INDEX events_by_chat ON events (chat_id, seq);
CREATE INDEX events_by_cause ON events (cause_seq) WHERE cause_seq IS NOT NULL;
CREATE INDEX events_by_kind ON events (kind, seq);

-- ---------------------------------------------------------------------------------------------
-- Projections. Written only by the event projections in src/engine/events/.

CREATE TABLE you (
  id TEXT PRIMARY KEY CHECK (id = 'you'),
  name TEXT NOT NULL,
  pronouns TEXT NOT NULL,
  persona TEXT NOT NULL,
  updated_seq INTEGER NOT NULL
) STRICT;

CREATE TABLE bots (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  persona TEXT NOT NULL,
  voice_samples TEXT NOT NULL,             -- JSON array of strings
  traits TEXT NOT NULL,                    -- JSON array of strings
  backstory TEXT NOT NULL,
  initial_relationship TEXT NOT NULL,
  kickoff TEXT NOT NULL,
  created_seq INTEGER NOT NULL,
  updated_seq INTEGER NOT NULL,
  reset_seq INTEGER                        -- last bot_reset
) STRICT;

CREATE TABLE chats (
  id TEXT PRIMARY KEY,
  bot_id TEXT NOT NULL,                    -- the host
  title TEXT NOT NULL,
  created_ts INTEGER NOT NULL,
  created_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL                -- newest event of this chat, for "newest first"
) STRICT;

CREATE TABLE chat_state (
  chat_id TEXT PRIMARY KEY,
  fiction_time TEXT NOT NULL,              -- ISO 8601, the in-fiction clock
  weather TEXT NOT NULL,
  active_scene_id TEXT,
  narrative_anchor TEXT NOT NULL
) STRICT;

CREATE TABLE containers (
  id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  properties TEXT NOT NULL,                -- JSON object
  parent_id TEXT,
  created_seq INTEGER NOT NULL
) STRICT;
CREATE INDEX containers_by_chat ON containers (chat_id);

CREATE TABLE scenes (
  id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  container_id TEXT,
  participants TEXT NOT NULL,              -- JSON array of entity refs
  opened_seq INTEGER NOT NULL,
  opened_fiction_time TEXT NOT NULL,
  closed_seq INTEGER,
  closed_fiction_time TEXT,
  close_reason TEXT,
  significance INTEGER
) STRICT;
CREATE INDEX scenes_by_chat ON scenes (chat_id, opened_seq);

CREATE TABLE activity (
  chat_id TEXT NOT NULL,
  entity TEXT NOT NULL,                    -- 'you' or a bot id
  container_id TEXT,
  slot TEXT NOT NULL,
  posture TEXT NOT NULL,
  action TEXT NOT NULL,                    -- JSON {verb, interruptible, requiredAttention, expectedMinutes}
  attention TEXT NOT NULL,
  holding TEXT NOT NULL,                   -- JSON array of strings
  status TEXT NOT NULL,
  updated_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, entity)
) STRICT;

CREATE TABLE edges (
  chat_id TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  affinity REAL NOT NULL,
  trust REAL NOT NULL,
  summary TEXT NOT NULL,
  last_interaction TEXT,                   -- in-fiction ISO time
  updated_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, source, target)
) STRICT;

-- What source knows about target: one row per fact, deduplicated by a normalised key, so a long
-- story's growing knowledge never means rewriting one ever-larger value.
CREATE TABLE edge_facts (
  chat_id TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  fact_key TEXT NOT NULL,
  fact TEXT NOT NULL,
  added_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, source, target, fact_key)
) STRICT;

CREATE TABLE memories (
  created_seq INTEGER PRIMARY KEY,         -- the memory_written event; also the FTS rowid, so any
                                           -- rebuild path gives a memory the same index entry
  id TEXT NOT NULL UNIQUE,
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
  auto_pinned INTEGER NOT NULL
) STRICT;
CREATE INDEX memories_by_owner ON memories (owner_id, created_seq);
CREATE INDEX memories_by_chat ON memories (chat_id, created_seq);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
  summary,
  content = 'memories',
  content_rowid = 'created_seq',
  tokenize = 'porter unicode61'
);
-- The triggers keep the index in step with every write the memory projections make.
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

CREATE TABLE transcript (
  turn_id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
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
  finished_seq INTEGER
) STRICT;
CREATE UNIQUE INDEX transcript_by_chat ON transcript (chat_id, seq);

CREATE TABLE classifier_failures (
  seq INTEGER PRIMARY KEY,                 -- the classifier_failed event
  chat_id TEXT,
  ts INTEGER NOT NULL,
  task TEXT NOT NULL,
  model TEXT NOT NULL,
  raw TEXT NOT NULL,
  error TEXT NOT NULL,
  attempts INTEGER NOT NULL
) STRICT;
