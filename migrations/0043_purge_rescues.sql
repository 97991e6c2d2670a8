-- Chats another device deleted forever that held turns written here and never synced (issue 36,
-- bug 4): a turn written on a paused phone vanished without a word when the laptop's purge arrived.
-- The purge still goes through; a copy of each such chat as shown (a SillyTavern file) waits here
-- until the player keeps it as a new chat, downloads it, or lets it go. Local to this device.
CREATE TABLE purge_rescues (
  chat_id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  bot_id TEXT,
  bot_name TEXT,
  unsynced_turns INTEGER NOT NULL CHECK (unsynced_turns > 0),
  file TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
