-- Character cards. A bot's greetings (a card's first message and alternate greetings) are the
-- versions of a new chat's opening; the card a bot came from is kept whole (card_kept), with the
-- parts the narrator reads projected here.
ALTER TABLE bots ADD COLUMN greetings TEXT NOT NULL DEFAULT '[]';
CREATE TABLE bot_cards (
  bot_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,                    -- the card_kept event holding the original card
  spec TEXT NOT NULL,                      -- chara_card_v1 / v2 / v3
  format TEXT NOT NULL,                    -- png / json / charx: what it was imported from
  nickname TEXT NOT NULL,                  -- what {{char}} becomes, when the card sets one
  system_prompt TEXT NOT NULL,
  post_history TEXT NOT NULL
) STRICT;
