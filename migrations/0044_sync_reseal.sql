-- "Encrypt with a passphrase" on a story that already synced in the clear, and "Change passphrase"
-- (issue 36, part 9): the passphrase the server's story is being sealed with anew, kept until the
-- rewrite has been committed on the server, so a device killed midway resumes it at its next
-- start. Local to this device, like the passphrase itself.
ALTER TABLE sync_device ADD COLUMN pending_passphrase TEXT;
