-- The log's index by chat holds each event's chat and seq (the rowid, which SQLite ends every index
-- with), not its chat and 36-character id (issue 38: storage against the text of the messages). It
-- was a tenth of a long story's database, and is now a quarter of what it was.
--
-- Since 2d9840b a log's seq order is its id order on every device: a synced event that sorts
-- before events already here moves them after it. Queries that walk a chat's events in order
-- (a replay, the markers' pass, a chat's last event, a rewind's stretch) walk it by seq, as the
-- index holds it. A log synced before 2d9840b may hold events out of that order: the first such
-- event's id is noted here, and the engine writes the log from there again in id order as it opens
-- (`putLogInIdOrder`), then rebuilds what it shows.
DROP INDEX events_by_chat;
CREATE INDEX events_by_chat ON event_rows (chat);

CREATE TABLE log_out_of_order (
  from_id TEXT NOT NULL                    -- the least id that stands after a greater one in seq order
) STRICT;

INSERT INTO log_out_of_order (from_id)
  SELECT min(id) FROM (
    SELECT id, max(id) OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM event_rows
  ) WHERE id < before
  HAVING count(*) > 0;
