-- A change can be taken back by more than one marker: undone, the undo rewound away, then undone
-- again. With one row per change the second undo found the first's row (its marker hidden) and
-- wrote nothing, so the change stayed in force (the rebuild property test found it, through a
-- branch replaying the chat). One row per marker; a change is undone while any of its markers is shown.
CREATE TABLE undone_changes_per_marker (
  seq INTEGER NOT NULL,
  change TEXT NOT NULL,
  undone_by INTEGER NOT NULL,
  PRIMARY KEY (seq, change, undone_by)
) STRICT;
INSERT INTO undone_changes_per_marker (seq, change, undone_by) SELECT seq, change, undone_by FROM undone_changes;
DROP TABLE undone_changes;
ALTER TABLE undone_changes_per_marker RENAME TO undone_changes;
CREATE INDEX undone_changes_by_marker ON undone_changes (undone_by);
