-- The language a story is played in (issue 34, part 2): chosen for a chat (chat_language_set) or as
-- a bot's default for its chats (bot_authored's language); otherwise told from the kickoff and the
-- player's lines (text/language.ts). NULL: not chosen.
ALTER TABLE chats ADD COLUMN language TEXT;
ALTER TABLE bots ADD COLUMN language TEXT;
