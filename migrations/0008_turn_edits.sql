-- A turn can be edited (turn_edited) and deleted from view (turn_hidden); both are events, and the
-- transcript row says so: "edited" beside the speaker, or a hidden-message stub in its place.
ALTER TABLE transcript ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE transcript ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
