-- Checks the existing rows against tool_call_completed_at_when_final (added NOT VALID by the previous
-- migration) under a lock that lets writes go on.
ALTER TABLE "tool_call" VALIDATE CONSTRAINT "tool_call_completed_at_when_final";
