-- The versions of a reply are the assistant_turn_started events linked by `regenerateOf`. Walking
-- from a version to the ones made from it needs this index; the log is immutable, so it never
-- goes stale and nothing derived has to be kept in step.
CREATE INDEX events_by_regenerated ON events (json_extract(payload, '$.regenerateOf'))
  WHERE kind = 'assistant_turn_started';
