-- The reaper looks for PENDING_EXTERNAL calls past their deadline on every pass of every worker;
-- without an index that was a scan of every call ever made. Only waiting calls are indexed.
-- (A partial index: the Prisma schema cannot express it, so it lives here only.)
CREATE INDEX "tool_call_external_deadline_idx" ON "tool_call" ("deadline_at") WHERE status = 'PENDING_EXTERNAL';
