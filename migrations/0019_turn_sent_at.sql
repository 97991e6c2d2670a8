-- When a turn was sent, for turns that say so themselves: an imported chat keeps its own dates
-- (the log's ts is when the event was written here). NULL for turns played here: their event's ts.
ALTER TABLE transcript ADD COLUMN sent_at INTEGER;
