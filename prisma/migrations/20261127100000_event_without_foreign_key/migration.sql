-- Events are appended two per call on the hot path; their foreign key cost a lookup and a row lock
-- per inserted row. Every statement that appends events takes the session's row for its counter,
-- and nothing deletes sessions.
ALTER TABLE "event" DROP CONSTRAINT "event_session_id_fkey";
