-- Whether the player paused sync on this device (Settings → Sync). Local, like sync_state: another
-- device keeps its own choice.
CREATE TABLE sync_device (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  paused INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO sync_device (only, paused) VALUES (1, 0);
