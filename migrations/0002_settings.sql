-- Settings are events too (settings_changed); this is their projection, one row per changed key.
-- Keys never written here take the defaults in src/engine/settings.ts.
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL CHECK (json_valid(value)),
  updated_seq INTEGER NOT NULL
) STRICT;
