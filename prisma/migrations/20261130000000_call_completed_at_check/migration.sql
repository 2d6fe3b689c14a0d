-- A call is unfinished exactly while completed_at is null: the reads of unfinished calls say
-- `completed_at IS NULL` to use tool_call_unfinished_idx, so the rule is a constraint, not a habit of
-- the writes. Added NOT VALID (a brief lock, no scan of the existing rows); the next migration
-- validates it without blocking writes. UNFINISHED_CALL_STATUSES in src/domain/calls/call-folds.ts
-- lists the same statuses.
ALTER TABLE "tool_call" ADD CONSTRAINT "tool_call_completed_at_when_final"
  CHECK ((completed_at IS NULL) = (status IN ('QUEUED', 'AWAITING_APPROVAL', 'RUNNING', 'PENDING_EXTERNAL'))) NOT VALID;
