-- retrace store schema v2: the read model (audit tables and the search index).
-- Every row here is derived from the events table alone (store/read_model.h):
-- maintained in the transaction of each append, and rebuilt from the events
-- by `retrace index --rebuild` (and by this migration's backfill). Queries go
-- through the views at the end (docs/AUDIT.md), never through these tables.

-- One row per tool call, keyed by callId: requested by an assistant message,
-- started (tool/call), settled (the append-origin tool/result).
CREATE TABLE tool_calls (
  session        INTEGER NOT NULL REFERENCES sessions(id),
  call_id        TEXT    NOT NULL,
  turn           INTEGER,
  step           INTEGER,
  tool_name      TEXT,
  arguments      TEXT,              -- the model's raw argument string
  requested_seq  INTEGER,           -- assistant/message holding the tool-call block
  call_seq       INTEGER,           -- tool/call
  call_time      INTEGER,
  result_seq     INTEGER,           -- tool/result (append origin)
  result_time    INTEGER,
  is_error       INTEGER,
  error_name     TEXT,
  error_code     TEXT,
  error_text     TEXT,              -- the result's text, for failed calls
  has_meta       INTEGER,
  outcome        TEXT    NOT NULL,  -- ok|error|denied|aborted|not-started|outcome-unknown|missing-result
  PRIMARY KEY (session, call_id)
) STRICT, WITHOUT ROWID;
-- One index: every B-tree an append touches costs a page write at commit.
CREATE INDEX tool_calls_by_tool ON tool_calls(tool_name, outcome);

CREATE TABLE turns (
  session     INTEGER NOT NULL REFERENCES sessions(id),
  turn        INTEGER NOT NULL,
  start_seq   INTEGER,
  start_time  INTEGER,
  end_seq     INTEGER,
  end_time    INTEGER,
  reason      TEXT,                 -- turn/end reason.kind; NULL while open
  error_text  TEXT,                 -- reason.error.message for kind 'error'
  PRIMARY KEY (session, turn)
) STRICT, WITHOUT ROWID;

-- Token usage is per step: the usage chunk when there is one, else the
-- assistant message's usage (dsh's accounting rule).
CREATE TABLE steps (
  session        INTEGER NOT NULL REFERENCES sessions(id),
  turn           INTEGER NOT NULL,
  step           INTEGER NOT NULL,
  start_seq      INTEGER,
  start_time     INTEGER,
  end_seq        INTEGER,
  end_time       INTEGER,
  input_tokens   INTEGER,
  output_tokens  INTEGER,
  usage_source   TEXT,              -- 'chunk' | 'message' | NULL
  PRIMARY KEY (session, turn, step)
) STRICT, WITHOUT ROWID;

-- Injected context: messages put on an agent inbox by anyone but the user
-- (pending), and plugin-sourced user/messages on the surface (claimed).
CREATE TABLE injections (
  session       INTEGER NOT NULL REFERENCES sessions(id),
  message_id    TEXT    NOT NULL,
  target        TEXT,               -- 'next-step' | 'next-turn' (inbox) or NULL (appended directly)
  source_kind   TEXT,
  plugin        TEXT,
  form          TEXT,
  summary       TEXT,
  pending_seq   INTEGER,
  pending_time  INTEGER,
  claimed_seq   INTEGER,
  claimed_time  INTEGER,
  PRIMARY KEY (session, message_id)
) STRICT, WITHOUT ROWID;

-- Surface replacements: compaction (a user/message replace) and pruning (a
-- tool/result replace), with the seqs they shadowed.
CREATE TABLE replacements (
  session        INTEGER NOT NULL REFERENCES sessions(id),
  seq            INTEGER NOT NULL,
  time           INTEGER NOT NULL,
  type           TEXT    NOT NULL,
  kind           TEXT    NOT NULL,  -- 'compaction' | 'pruning' | 'other'
  start_seq      INTEGER NOT NULL,
  end_seq        INTEGER NOT NULL,
  shadowed_seqs  TEXT    NOT NULL,  -- JSON array
  PRIMARY KEY (session, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE retries (
  session        INTEGER NOT NULL REFERENCES sessions(id),
  retry_id       TEXT    NOT NULL,
  seq            INTEGER NOT NULL,
  time           INTEGER NOT NULL,
  turn           INTEGER,
  step           INTEGER,
  provider       TEXT,
  retry          INTEGER,
  max_retries    INTEGER,
  delay_ms       INTEGER,
  failure        TEXT,              -- failure.message
  started_seq    INTEGER,           -- llm/retry-started
  PRIMARY KEY (session, retry_id, retry)
) STRICT, WITHOUT ROWID;

-- Search documents (dsh §10.2): only the extracted text of events that have
-- any, never raw JSON. Keyed like the events table (id = events.event_id),
-- so no second index. search_fts indexes the text as external content, and
-- catches up in bulk (store/read_model.h): search_progress holds, per
-- session, the highest document id already in search_fts.
CREATE TABLE search_docs (
  id                INTEGER PRIMARY KEY,       -- (sessions.id << 32) | seq
  session           INTEGER NOT NULL REFERENCES sessions(id),
  seq               INTEGER NOT NULL,
  type              TEXT    NOT NULL,
  time              INTEGER NOT NULL,
  surface           TEXT    NOT NULL,          -- current | shadowed | log-only
  codepoint_length  INTEGER NOT NULL,
  text              TEXT    NOT NULL
) STRICT;
CREATE VIRTUAL TABLE search_fts USING fts5(text, content='search_docs', content_rowid='id', tokenize='unicode61');
CREATE TABLE search_progress (
  session          INTEGER PRIMARY KEY REFERENCES sessions(id),
  indexed_through  INTEGER NOT NULL
) STRICT;

-- The documented views (docs/AUDIT.md): session ids instead of local keys.
CREATE VIEW v_sessions AS
  SELECT s.session_id, s.created_at, s.cwd, s.parent_session, s.source,
         (SELECT COALESCE(MAX(e.seq + e.count), 0) FROM events e WHERE e.session = s.id) AS events
  FROM sessions s;

CREATE VIEW v_tool_calls AS
  SELECT s.session_id, c.call_id, c.turn, c.step, c.tool_name, c.arguments, c.requested_seq, c.call_seq,
         c.call_time, c.result_seq, c.result_time, c.is_error, c.error_name, c.error_code, c.error_text,
         c.has_meta, c.outcome, c.result_time - c.call_time AS duration_ms
  FROM tool_calls c JOIN sessions s ON s.id = c.session;

CREATE VIEW v_turns AS
  SELECT s.session_id, t.turn, t.start_seq, t.start_time, t.end_seq, t.end_time, t.reason, t.error_text,
         t.end_time - t.start_time AS duration_ms,
         (SELECT COUNT(*) FROM steps p WHERE p.session = t.session AND p.turn = t.turn) AS steps,
         (SELECT COUNT(*) FROM tool_calls c WHERE c.session = t.session AND c.turn = t.turn
                                              AND c.call_seq IS NOT NULL) AS tool_calls,
         (SELECT SUM(p.input_tokens) FROM steps p WHERE p.session = t.session AND p.turn = t.turn) AS input_tokens,
         (SELECT SUM(p.output_tokens) FROM steps p WHERE p.session = t.session AND p.turn = t.turn) AS output_tokens
  FROM turns t JOIN sessions s ON s.id = t.session;

CREATE VIEW v_steps AS
  SELECT s.session_id, p.turn, p.step, p.start_seq, p.start_time, p.end_seq, p.end_time,
         p.input_tokens, p.output_tokens, p.usage_source
  FROM steps p JOIN sessions s ON s.id = p.session;

CREATE VIEW v_injections AS
  SELECT s.session_id, i.message_id, i.target, i.source_kind, i.plugin, i.form, i.summary,
         i.pending_seq, i.pending_time, i.claimed_seq, i.claimed_time,
         CASE WHEN i.claimed_seq IS NULL THEN 'pending' ELSE 'claimed' END AS state
  FROM injections i JOIN sessions s ON s.id = i.session;

CREATE VIEW v_replacements AS
  SELECT s.session_id, r.seq, r.time, r.type, r.kind, r.start_seq, r.end_seq, r.shadowed_seqs
  FROM replacements r JOIN sessions s ON s.id = r.session;

CREATE VIEW v_retries AS
  SELECT s.session_id, r.retry_id, r.seq, r.time, r.turn, r.step, r.provider, r.retry, r.max_retries,
         r.delay_ms, r.failure, r.started_seq
  FROM retries r JOIN sessions s ON s.id = r.session;

CREATE VIEW v_events AS
  SELECT s.session_id, e.seq, e.count, e.type, e.time, e.turn, e.step, e.call_id, e.tool_name, e.is_error,
         e.surface, e.packed, e.json
  FROM events e JOIN sessions s ON s.id = e.session;

CREATE VIEW v_search_docs AS
  SELECT s.session_id, d.seq, d.type, d.time, d.surface, d.codepoint_length, d.text
  FROM search_docs d JOIN sessions s ON s.id = d.session;
