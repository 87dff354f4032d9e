-- retrace store schema v1: sessions and their event logs.
-- Written to disk; never rename a table or column. Change the schema only by
-- adding a new numbered file (see migrations/README.md).

CREATE TABLE sessions (
  id              INTEGER PRIMARY KEY,        -- local key; events.event_id embeds it
  session_id      TEXT    NOT NULL UNIQUE,    -- dsh SessionId
  header          TEXT    NOT NULL,           -- verbatim header line (JSONL line 1)
  created_at      INTEGER NOT NULL,           -- header createdAt (Unix ms)
  cwd             TEXT,
  parent_session  TEXT,
  source          TEXT                        -- file it was imported from, if any
) STRICT;

-- One row per storage line of the dsh log: a single event, or a packed chunk
-- row standing for `count` consecutive assistant/chunk events (dsh §7.3).
-- event_id = (sessions.id << 32) | seq, so the table itself is clustered by
-- (session, seq) without a second index.
CREATE TABLE events (
  event_id   INTEGER PRIMARY KEY,
  session    INTEGER NOT NULL REFERENCES sessions(id),
  seq        INTEGER NOT NULL,   -- the event's seq; a packed row's first member seq
  count      INTEGER NOT NULL,   -- events in this row: 1, or a packed row's members
  type       TEXT    NOT NULL,   -- event type ('assistant/chunk' for packed rows)
  time       INTEGER NOT NULL,   -- event time (a packed row's first member time)
  turn       INTEGER,            -- data.turn where present
  step       INTEGER,            -- data.step where present
  call_id    TEXT,               -- tool/call callId, tool/result message.source.callId
  tool_name  TEXT,               -- tool/call name
  is_error   INTEGER,            -- tool/result: 1 or 0
  surface    TEXT,               -- 'append' | 'replace' | NULL (log-only)
  packed     TEXT,               -- the row tag of a packed chunk row, else NULL
  json       TEXT    NOT NULL,   -- the verbatim storage line
  CHECK (count >= 1 AND (packed IS NOT NULL OR count = 1))
) STRICT;

-- Every secondary index costs a page write per commit for each leaf it
-- touches (measured in docs/PERFORMANCE.md), so there is one, and it is
-- append-friendly: event times rise with seq, so it grows at its right edge.
-- It covers every extracted column for time-ranged audits. Stream deltas are
-- read by session range, never by time or kind, so they stay out of it.
-- Per-session filters (type, call_id, surface) scan the clustered
-- (session, seq) key; derived audit tables add their own indexes.
CREATE INDEX events_by_time ON events(time, type, tool_name, is_error, surface) WHERE type <> 'assistant/chunk';
