-- AlterTable
ALTER TABLE "schedule" ADD COLUMN "paused_at" TIMESTAMPTZ(3);
