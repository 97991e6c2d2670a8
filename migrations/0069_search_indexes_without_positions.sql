-- The story's search index keeps which turns hold a word, not where in them (issue 38: storage
-- against the text of the messages).
--
-- FTS5's default (`detail = full`) keeps every word's position in every row: what a phrase ("the
-- old key") or NEAR query needs. The story's search never asks one: it asks for every word the
-- player typed, each on its own (queries/search.ts), and its snippets and bm25 read the turn's text
-- again through the index's content view. `detail = none` keeps the rows alone: at 10,000 turns the
-- index went 0.59 -> 0.15 MB, the ranking unchanged. (The memories' context index keeps its
-- positions: it holds no text to read again, and without them bm25 scores every match 0.)
--
-- Such an index refuses a phrase, and a quoted word that its tokenizer splits in two is one: a
-- Hindi or Thai word lost its vowel signs (category M) to the default tokenizer, which split
-- "हिन्दी" into ह, न, द, and so matched another word with the same letters. Marks are part of a
-- word here (`categories`), so each such word is one token, found whole; a query word is quoted
-- token by token besides (text/search-text.ts, `quotedTokens`).
--
-- The index is made afresh and every turn waits: the leader's background pass fills it a batch at
-- a time, and a search indexes first what still waits (as 0038 did).
DROP TABLE transcript_fts;
CREATE VIRTUAL TABLE transcript_fts USING fts5 (
  text,
  content = 'transcript_for_search',
  content_rowid = 'seq',
  tokenize = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'",
  detail = none
);
DELETE FROM transcript_fts_pending;
INSERT INTO transcript_fts_pending (seq) SELECT seq FROM transcript_rows;
