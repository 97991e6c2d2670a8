-- A reply's prompt report names its long system parts by hash, and each text is logged once per
-- chat in a `prompt_text_kept` event (engine/turn/prompt-texts.ts). This finds it by chat and hash.
-- Partial: no other event writes a page of it.
CREATE INDEX events_by_prompt_text ON events (chat_id, json_extract(payload, '$.hash'))
  WHERE kind = 'prompt_text_kept';
