-- AlterTable
ALTER TABLE "session" ADD COLUMN     "last_activity_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Existing sessions: the time of their newest retained event, else their creation.
UPDATE "session" s SET "last_activity_at" = COALESCE((SELECT max(e.created_at) FROM "event" e WHERE e.session_id = s.id), s.created_at);
