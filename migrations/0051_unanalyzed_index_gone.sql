-- The replies waiting for analysis are found from each chat's end (engine/analysis/jobs.ts): only a
-- chat's last few can wait. Their index wrote two pages of every Send, one as a reply began and
-- one as its analysis landed.
DROP INDEX IF EXISTS transcript_unanalyzed;
