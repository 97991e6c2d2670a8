-- The passphrase this device seals its synced events with (Settings → Sync), or NULL. Local: it is
-- never an event, so never on the server, in a backup or an export.
ALTER TABLE sync_device ADD COLUMN passphrase TEXT;
