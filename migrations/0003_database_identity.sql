-- Which database this is. The app remembers the id it last saw, so a database that silently went
-- missing (and was recreated empty) is told apart from a first run.
CREATE TABLE database_identity (
  id TEXT NOT NULL,
  created_ts INTEGER NOT NULL
) STRICT;
