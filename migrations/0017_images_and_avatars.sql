-- Faces. An image is an event (image_added, its bytes in the payload, so backups and a future sync
-- carry it), named by the SHA-256 of its bytes: the same picture is stored once. `images` is the
-- projection that finds it; you and bots name theirs by hash.
CREATE TABLE images (
  hash TEXT PRIMARY KEY,                   -- hex SHA-256 of the bytes
  seq INTEGER NOT NULL,                    -- the image_added event holding them
  mime TEXT NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  size INTEGER NOT NULL                    -- bytes
) STRICT;
ALTER TABLE bots ADD COLUMN avatar TEXT;
ALTER TABLE you ADD COLUMN avatar TEXT;
