-- The index of every call's worker_id, replaced by tool_call_unfinished_worker_idx (previous migration).
-- Dropped CONCURRENTLY, so that running processes keep writing calls meanwhile.
DROP INDEX CONCURRENTLY "tool_call_worker_id_idx";
