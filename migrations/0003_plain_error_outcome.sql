-- The call outcome once named 'denied' is an error result without an error
-- identity ({name, code}): a pre-execute refusal or a tool's own plain-error
-- check, which dsh logs alike. It is named for what the log can tell.
UPDATE tool_calls SET outcome = 'plain-error' WHERE outcome = 'denied';
