-- Where every drawer value came from (issue 33, part 1). `value_changes`: each change an event made
-- to a value (a feeling's delta, a place set, a fact added, a thread opened), projected from the
-- events that declare `changes`, so "Why?" lists them with the turn that caused them.
CREATE TABLE value_changes (
  chat_id TEXT NOT NULL,
  target TEXT NOT NULL,
  field TEXT NOT NULL,
  seq INTEGER NOT NULL,
  part TEXT NOT NULL DEFAULT '',
  how TEXT NOT NULL,
  value TEXT,
  undone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, target, field, seq, part)
) STRICT;

-- The changes taken back one at a time ("Undo this change"): written by the `change_undone`
-- markers, like `visibility`, and read while their event is projected again without them.
CREATE TABLE undone_changes (
  seq INTEGER NOT NULL,
  change TEXT NOT NULL,
  undone_by INTEGER NOT NULL,
  PRIMARY KEY (seq, change)
) STRICT;
CREATE INDEX undone_changes_by_marker ON undone_changes (undone_by);
