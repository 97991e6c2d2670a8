-- Open threads: the story's promises, quests, secrets and unanswered questions, opened and settled
-- by the one analysis call per reply (or by hand in the drawer). A tracked value (state/threads.ts):
-- it follows swipes, rewind, branch, a host reset and sync like the rest of the story.
CREATE TABLE threads (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',
  opened_seq INTEGER NOT NULL,
  opened_fiction_time TEXT NOT NULL,
  resolved_seq INTEGER,
  resolved_fiction_time TEXT,
  PRIMARY KEY (chat_id, id)
) STRICT;
CREATE INDEX threads_by_status ON threads (chat_id, status, opened_seq);
