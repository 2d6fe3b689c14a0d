-- Calls and events are written per call on the hot path; each foreign key cost a lookup and a row
-- lock per inserted row. Their statements write them with the session (and batch) they belong to,
-- and nothing deletes sessions or batches.
ALTER TABLE "tool_call" DROP CONSTRAINT "tool_call_session_id_fkey";
ALTER TABLE "tool_call" DROP CONSTRAINT "tool_call_batch_row_id_fkey";
ALTER TABLE "event" DROP CONSTRAINT "event_session_id_fkey";
