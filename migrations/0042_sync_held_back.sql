-- Pages of a large pull held back because merging them would move events written here meanwhile
-- (a line sent while the story was still arriving): each such page made the chat replay whole, and
-- a 10,000-turn pull took 80-100 s instead of 8. They are kept here with the checkpoint past them
-- and merged in one go when the pull reaches its end (or the next pull does, after a crash).
CREATE TABLE sync_held_back (
  id TEXT PRIMARY KEY,
  event TEXT NOT NULL
) STRICT;

-- Whether this device has ever had the whole story from the server (a pull that reached its end).
-- Until then it is joining: what it authors could replace what the other devices hold (a persona
-- typed on a phone before its first pull replaced the laptop's), so the app asks it to wait.
ALTER TABLE sync_state ADD COLUMN caught_up INTEGER NOT NULL DEFAULT 0 CHECK (caught_up IN (0, 1));
UPDATE sync_state SET caught_up = 1 WHERE pulled_since IS NOT NULL;
