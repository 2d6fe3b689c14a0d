-- The task reaper (every 5 s on every worker) looks for one-shot schedules whose time passed without
-- firing and counts the cron schedules that should have a job scheduler in Redis: both only among the
-- live schedules (enabled, not paused). Without an index each pass read the whole schedule table, which
-- keeps every fired one-shot and cancelled schedule (disabled) for good. Only live schedules are
-- indexed. The reads write the predicate as literals (`enabled AND paused_at IS NULL`): Prisma sends
-- `enabled = $1`, a parameter the planner cannot match against it.
-- (A partial index: the Prisma schema cannot express it, so it lives here only.) Built CONCURRENTLY, so
-- that running processes keep writing meanwhile; a build that failed leaves an INVALID index of this
-- name: drop it before running the migration again.
CREATE INDEX CONCURRENTLY "schedule_live_idx" ON "schedule" ("type", "scheduled_at") WHERE "enabled" AND "paused_at" IS NULL;
