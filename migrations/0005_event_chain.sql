-- retrace store schema v5: a tamper-evident chain per session
-- (store/event_chain.h). Each stored row carries the SHA-256 link of the
-- previous row's link and its own verbatim line; `retrace verify` recomputes
-- it. The links of the rows already stored are computed in this migration's
-- transaction (store/event_store.cc).
ALTER TABLE events ADD COLUMN link BLOB;
