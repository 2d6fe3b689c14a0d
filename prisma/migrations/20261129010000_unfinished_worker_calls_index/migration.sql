-- The calls of given workers are looked for only while they run: the reaper's dead workers still
-- holding calls and their recovery (every pass of every worker), a worker's cancel-requested calls
-- (every heartbeat while it runs calls). The index on worker_id they went through held an entry for
-- every call ever inserted (a null worker_id is indexed too), and every non-HOT update of a call added
-- one. Only unfinished calls are indexed now, so a call leaves this index when it is final.
-- The predicate is `completed_at IS NULL` (a call is unfinished exactly while completed_at is null):
-- the reads say it beside `status = 'RUNNING'`.
-- (A partial index: the Prisma schema cannot express it, so it lives here only.)
DROP INDEX "tool_call_worker_id_idx";
CREATE INDEX "tool_call_unfinished_worker_idx" ON "tool_call" ("worker_id") WHERE "completed_at" IS NULL;
