-- Deleting a chat or a bot only marks it (chat_deleted / bot_deleted, undone by *_restored): its
-- events stay, and "Recently deleted" can bring it back for 30 days. A purge is the one thing that
-- removes data, and it is logged itself: the `purged` event names the chats and the global events
-- it removes. The log's guard now lets a row go only when a purge event names it.
ALTER TABLE chats ADD COLUMN deleted_ts INTEGER;
ALTER TABLE bots ADD COLUMN deleted_ts INTEGER;

DROP TRIGGER events_are_permanent;
CREATE TRIGGER events_are_permanent BEFORE DELETE ON events
WHEN OLD.kind = 'purged'
  OR (NOT EXISTS (SELECT 1 FROM events p, json_each(p.payload, '$.chats') c WHERE p.kind = 'purged' AND c.value = OLD.chat_id)
      AND NOT EXISTS (SELECT 1 FROM events p, json_each(p.payload, '$.events') e WHERE p.kind = 'purged' AND e.value = OLD.id))
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event, and only a logged purge removes data');
END;
