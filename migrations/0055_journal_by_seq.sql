-- The projection journal was indexed by chat and seq: each commit's records went in at the end of
-- the chat's run, in the middle of the index, where a full page splits with its neighbours (about
-- nine pages of 1 KiB a Send). Indexed by seq alone, they go in at its end. Every query that reads
-- or drops a chat's records names a range of seqs (the tail it undoes or copies, the part older
-- than the horizon it prunes), and a chat's records among others' in that range are few; a chat's
-- whole journal dropped at once (a purge, one chat's rebuild) reads the journal through, which a
-- rebuild's replay of the chat outweighs.
DROP INDEX projection_journal_by_chat;
CREATE INDEX projection_journal_by_seq ON projection_journal (seq);
