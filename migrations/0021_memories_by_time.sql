-- A question that names a story time ("yesterday", "on 3 May 1890") reads the owner's memories of
-- the chat around then: by fiction time, not by words.
CREATE INDEX memories_by_time ON memories (owner_id, chat_id, fiction_time);
