-- The background analysis after each reply, and the per-witness summary when a scene closes.
-- Both are jobs derived from the log: a reply with no analyzed_seq still needs its analysis, a
-- closed scene with no scene_summaries row for a witness still needs that witness's summary. A
-- new leader finds unfinished jobs here and runs them; the marker events make each run once.
ALTER TABLE transcript ADD COLUMN analyzed_seq INTEGER;
CREATE INDEX transcript_unanalyzed ON transcript (chat_id, seq) WHERE role = 'assistant' AND analyzed_seq IS NULL;

CREATE TABLE scene_summaries (
  scene_id TEXT NOT NULL,
  owner_id TEXT NOT NULL,                  -- the witness whose point of view was summarised
  chat_id TEXT NOT NULL,
  seq INTEGER NOT NULL,                    -- the scene_summarized event
  ok INTEGER NOT NULL,                     -- 0 when the classifier failed and the turn memories stayed
  PRIMARY KEY (scene_id, owner_id)
) STRICT;
CREATE INDEX scene_summaries_by_chat ON scene_summaries (chat_id);

CREATE INDEX memories_by_scene ON memories (scene_id, owner_id) WHERE scene_id IS NOT NULL;
-- Retrieval filters one owner's memories in one chat, pinned ones first.
CREATE INDEX memories_by_owner_chat ON memories (owner_id, chat_id, pinned, created_seq);
