-- The reaper looks for PENDING_EXTERNAL calls past their deadline on every pass of every worker;
-- without an index that was a scan of every call ever made. Only waiting calls are indexed.
-- (A partial index: the Prisma schema cannot express it, so it lives here only.) Built CONCURRENTLY,
-- so the processes still running while a deployment migrates keep writing calls meanwhile; that is
-- why it is the migration's only statement. A build that failed leaves an INVALID index of this name:
-- drop it before running the migration again.
CREATE INDEX CONCURRENTLY "tool_call_external_deadline_idx" ON "tool_call" ("deadline_at") WHERE status = 'PENDING_EXTERNAL';
