-- A thinking model's thinking, kept apart from its reply (issue 35, part 1): shown folded above the
-- reply, never sent back to a model, searched, remembered or exported for other apps; in the event
-- log (and so in backups) with the reply. thinking_ms: how long it thought, when known.
ALTER TABLE transcript ADD COLUMN thinking TEXT;
ALTER TABLE transcript ADD COLUMN thinking_ms INTEGER;
-- What was thought so far by a reply still streaming, so a stop or a crash keeps it too.
ALTER TABLE stream_checkpoints ADD COLUMN thinking TEXT;
