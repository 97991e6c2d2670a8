-- Events a purge removed from this device that the sync server may still hold: the ids only (the
-- events themselves are gone), until sync has asked the server to delete its copies. Written by a
-- purge here, by a purge arriving from another device, and when the server sends an event that a
-- purge here already removed. Local state, never an event; kept only on a device that has synced.
CREATE TABLE sync_removals (
  id TEXT PRIMARY KEY
) STRICT;

-- Events another device sent before what they name (their cause, the version they choose): held
-- here, whole, and merged with the batch that brings it. A clustered CouchDB hands changes out as
-- its shards' feeds come, not in the order they were written.
CREATE TABLE sync_waiting (
  id TEXT PRIMARY KEY,
  event TEXT NOT NULL
) STRICT;

-- Chats a purge took with their bot that no purge names (started on a device that had not heard
-- of it yet): their events arriving later are dropped too.
CREATE TABLE purged_chats (
  chat_id TEXT PRIMARY KEY
) STRICT;
