-- The log's second shape: immutable rows that reference each other by id, ready to merge with
-- another device's log.
--
-- Before: regenerate and rewind UPDATEd `superseded_by` / `hidden_by` on old rows, and causes,
-- rewinds and undos pointed at local `seq` numbers. After: a row is never updated or deleted
-- (triggers refuse it); what is superseded or hidden is the projected `visibility` table, computed
-- from the marker events themselves (a regenerating assistant_turn_started names `regenerateOf`,
-- chat_rewound names `from`, rewind_undone names `rewind`, all by event id); `cause_id` replaces
-- `cause_seq`; every row names the device (database) that wrote it; and ids are re-minted as
-- UUIDv7 in arrival order, so that id order is event order (older logs mixed v4 ids made by tabs).
-- Layout of a minted id, as in src/engine/ids.ts: 48 bits of milliseconds (never behind an earlier
-- event's), version 7, a 42-bit counter within the millisecond (rand_a, the variant's two spare
-- bits, 28 bits of rand_b), then 32 random bits.

-- Looked up once per reply below; without it a long log would take minutes.
CREATE INDEX events_by_superseder ON events (superseded_by) WHERE superseded_by IS NOT NULL;

CREATE TEMP TABLE minted (seq INTEGER PRIMARY KEY, id TEXT NOT NULL);
INSERT INTO minted (seq, id)
SELECT seq,
       substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-' || substr(h, 21, 12)
FROM (
  SELECT seq,
         printf('%012x', ms) || '7' || printf('%03x', (c >> 30) & 4095) || printf('%x', 8 + ((c >> 28) & 3))
           || printf('%07x', c & 268435455) || lower(hex(randomblob(4))) AS h
  FROM (
    SELECT seq, ms, row_number() OVER (PARTITION BY ms ORDER BY seq) - 1 AS c
    FROM (SELECT seq, max(ts) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS ms FROM events)
  )
);

CREATE TABLE events_v2 (
  seq INTEGER PRIMARY KEY,                 -- local arrival order only; nothing refers to it
  id TEXT NOT NULL UNIQUE,                 -- UUIDv7 from a hybrid logical clock: id order is event order
  device_id TEXT NOT NULL,                 -- the database that wrote the event
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat_id TEXT,                            -- null for global events
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  cause_id TEXT,                           -- the event that caused this derived one
  command_id TEXT UNIQUE                   -- the tab's id for the user action, on its first event
) STRICT;

INSERT INTO events_v2 (seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id)
SELECT e.seq,
       m.id,
       coalesce((SELECT id FROM database_identity LIMIT 1), 'unknown device'),
       e.ts,
       e.kind,
       e.chat_id,
       CASE
         WHEN e.kind = 'chat_rewound' THEN json_object('from', coalesce(
           (SELECT fm.id FROM events f JOIN minted fm ON fm.seq = f.seq
             WHERE f.chat_id = e.chat_id AND f.seq >= json_extract(e.payload, '$.fromSeq') ORDER BY f.seq LIMIT 1),
           m.id))
         WHEN e.kind = 'rewind_undone' THEN json_object('rewind',
           (SELECT rm.id FROM minted rm WHERE rm.seq = json_extract(e.payload, '$.rewindSeq')))
         WHEN e.kind = 'assistant_turn_started' AND EXISTS (SELECT 1 FROM events s WHERE s.superseded_by = e.seq)
           -- the regenerated reply: the first superseded row whose own cause was not superseded with it
           THEN json_set(e.payload, '$.regenerateOf',
             (SELECT rm.id FROM events r JOIN minted rm ON rm.seq = r.seq
               WHERE r.superseded_by = e.seq
                 AND (r.cause_seq IS NULL OR (SELECT c.superseded_by FROM events c WHERE c.seq = r.cause_seq) IS NOT e.seq)
               ORDER BY r.seq LIMIT 1))
         ELSE e.payload
       END,
       (SELECT cm.id FROM minted cm WHERE cm.seq = e.cause_seq),
       NULL
FROM events e JOIN minted m ON m.seq = e.seq;

-- Which events are not shown, and why: superseded by a regenerate (the new reply's seq) or hidden
-- by a rewind (the rewind's seq). Local seqs, because this table is local: rebuilt from the marker
-- events, never exported. Only invisible events have a row.
CREATE TABLE visibility (
  seq INTEGER PRIMARY KEY,
  superseded_by INTEGER,
  hidden_by INTEGER,
  CHECK (superseded_by IS NOT NULL OR hidden_by IS NOT NULL)
) STRICT;
CREATE INDEX visibility_by_rewind ON visibility (hidden_by) WHERE hidden_by IS NOT NULL;
INSERT INTO visibility (seq, superseded_by, hidden_by)
SELECT seq, superseded_by, hidden_by FROM events WHERE superseded_by IS NOT NULL OR hidden_by IS NOT NULL;

DROP TABLE events;
DROP TABLE minted;
ALTER TABLE events_v2 RENAME TO events;
CREATE INDEX events_by_chat ON events (chat_id, id);
CREATE INDEX events_by_cause ON events (cause_id) WHERE cause_id IS NOT NULL;
CREATE INDEX events_by_kind ON events (kind, id);

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;
CREATE TRIGGER events_are_permanent BEFORE DELETE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event');
END;
