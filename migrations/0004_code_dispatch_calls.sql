-- retrace store schema v4: Code Mode sub-calls in the read model. A run_code
-- program's tool calls (tool/code-dispatch-start, then tool/code-dispatch)
-- are calls of their own in tool_calls, keyed by their subCallId
-- (<callId>:code:<n>), with the run_code call that made them as
-- parent_call_id. They carry no turn or step (their events do not), so turn
-- counts stay the model's own calls. The rows of sub-calls already stored are
-- derived in this migration's transaction (store/event_store.cc).
ALTER TABLE tool_calls ADD COLUMN parent_call_id TEXT;

DROP VIEW v_tool_calls;
CREATE VIEW v_tool_calls AS
  SELECT s.session_id, c.call_id, c.turn, c.step, c.tool_name, c.arguments, c.requested_seq, c.call_seq,
         c.call_time, c.result_seq, c.result_time, c.is_error, c.error_name, c.error_code, c.error_text,
         c.has_meta, c.outcome, c.result_time - c.call_time AS duration_ms, c.parent_call_id
  FROM tool_calls c JOIN sessions s ON s.id = c.session;
