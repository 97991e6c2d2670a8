-- A chat's own sampling (chat_sampler_set): JSON of the knobs it overrides, NULL when it follows
-- the global settings.
ALTER TABLE chats ADD COLUMN sampler TEXT;
