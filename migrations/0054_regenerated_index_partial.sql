-- The index of regenerated replies by the reply they regenerate held an entry for every event, its
-- key NULL for all but the few regenerations: an entry more in every commit's pages, and, with the
-- NULLs sorting first, an insert at the end of their run, in the middle of the index. Every query
-- that uses it compares the key with `=`, which implies the condition, so SQLite still uses it.
DROP INDEX events_by_regenerated;
CREATE INDEX events_by_regenerated ON events (json_extract(payload, '$.regenerateOf'))
  WHERE json_extract(payload, '$.regenerateOf') IS NOT NULL;
