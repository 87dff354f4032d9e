-- retrace store schema v1: sessions and their events.
-- Written to disk; never rename a table or column. Change the schema only by
-- adding a new numbered file (see migrations/README.md).

CREATE TABLE sessions (
  id              INTEGER PRIMARY KEY,        -- local key; events.event_id embeds it
  session_id      TEXT    NOT NULL UNIQUE,    -- dsh SessionId
  header          TEXT    NOT NULL,           -- verbatim header line (JSONL line 1)
  created_at      INTEGER NOT NULL,           -- header createdAt (Unix ms)
  cwd             TEXT,
  parent_session  TEXT,
  next_seq        INTEGER NOT NULL DEFAULT 0, -- number of stored events
  source          TEXT                        -- file it was imported from, if any
) STRICT;

-- One row per decoded event. event_id = (sessions.id << 32) | seq, so the
-- table itself is clustered by (session, seq) without a second index.
CREATE TABLE events (
  event_id   INTEGER PRIMARY KEY,
  session    INTEGER NOT NULL REFERENCES sessions(id),
  seq        INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  time       INTEGER NOT NULL,
  turn       INTEGER,            -- data.turn where present
  step       INTEGER,            -- data.step where present
  call_id    TEXT,               -- tool/call callId, tool/result message.source.callId
  tool_name  TEXT,               -- tool/call name
  is_error   INTEGER,            -- tool/result: 1 or 0
  surface    TEXT,               -- 'append' | 'replace' | NULL (log-only)
  json       TEXT,               -- the verbatim event line; NULL for members of a packed row
  row_text   TEXT,               -- first member of a packed chunk row: the verbatim row
  row_len    INTEGER NOT NULL,   -- events in this event's storage row; 0 for later row members
  CHECK ((json IS NULL) = (row_len <> 1))
) STRICT;

-- Stream deltas (assistant/chunk) are ~70% of rows and are read by session
-- range, never by type; leaving them out keeps the index and appends small.
CREATE INDEX events_by_type ON events(type, time) WHERE type <> 'assistant/chunk';
CREATE INDEX events_by_surface ON events(session, surface) WHERE surface IS NOT NULL;
CREATE INDEX events_by_call ON events(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX events_by_tool ON events(tool_name) WHERE tool_name IS NOT NULL;
CREATE INDEX events_failed ON events(session, seq) WHERE is_error = 1;
