-- DropIndex
DROP INDEX "tool_call_status_heartbeat_at_idx";

-- AlterTable
ALTER TABLE "event" ADD COLUMN     "tenant_id" UUID,
ADD COLUMN     "tenant_seq" BIGINT;
-- Existing events: their session's tenant, and a tenant-wide order that follows each session's.
UPDATE "event" e SET "tenant_id" = s."tenant_id" FROM "session" s WHERE s."id" = e."session_id";
UPDATE "event" e SET "tenant_seq" = n.rank
  FROM (SELECT "session_id", "seq", row_number() OVER (PARTITION BY "tenant_id" ORDER BY "created_at", "session_id", "seq") AS rank FROM "event") n
 WHERE n."session_id" = e."session_id" AND n."seq" = e."seq";
ALTER TABLE "event" ALTER COLUMN "tenant_id" SET NOT NULL, ALTER COLUMN "tenant_seq" SET NOT NULL;

-- AlterTable
ALTER TABLE "tenant" ADD COLUMN     "event_seq" BIGINT NOT NULL DEFAULT 0;
UPDATE "tenant" t SET "event_seq" = n.last FROM (SELECT "tenant_id", max("tenant_seq") AS last FROM "event" GROUP BY 1) n WHERE n."tenant_id" = t."id";

-- AlterTable
ALTER TABLE "tool_batch" ADD COLUMN     "cancelled_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "failed_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "lane_gen" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "succeeded_count" INTEGER NOT NULL DEFAULT 0;
UPDATE "tool_batch" b SET "succeeded_count" = n.succeeded, "failed_count" = n.failed, "cancelled_count" = n.cancelled
  FROM (SELECT "batch_row_id", count(*) FILTER (WHERE "status" = 'SUCCEEDED') AS succeeded, count(*) FILTER (WHERE "status" = 'FAILED') AS failed,
               count(*) FILTER (WHERE "status" = 'CANCELLED') AS cancelled FROM "tool_call" GROUP BY 1) n
 WHERE n."batch_row_id" = b."id";

-- AlterTable
ALTER TABLE "tool_call" ADD COLUMN     "tenant_id" UUID;
UPDATE "tool_call" c SET "tenant_id" = s."tenant_id" FROM "session" s WHERE s."id" = c."session_id";
ALTER TABLE "tool_call" ALTER COLUMN "tenant_id" SET NOT NULL;

-- CreateTable
CREATE TABLE "job_outbox" (
    "id" BIGSERIAL NOT NULL,
    "deployment" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "queue" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker" (
    "id" TEXT NOT NULL,
    "deployment" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'live',
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "worker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployment" (
    "prefix" TEXT NOT NULL,
    "epoch" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("prefix")
);

-- CreateIndex
CREATE INDEX "job_outbox_deployment_created_at_idx" ON "job_outbox"("deployment", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "job_outbox_deployment_job_id_key" ON "job_outbox"("deployment", "job_id");

-- CreateIndex
CREATE INDEX "worker_deployment_state_heartbeat_at_idx" ON "worker"("deployment", "state", "heartbeat_at");

-- CreateIndex
CREATE UNIQUE INDEX "event_tenant_id_tenant_seq_key" ON "event"("tenant_id", "tenant_seq");

-- CreateIndex
CREATE INDEX "tool_call_tenant_id_queued_at_id_idx" ON "tool_call"("tenant_id", "queued_at" DESC, "id");

-- CreateIndex
CREATE INDEX "tool_call_worker_id_idx" ON "tool_call"("worker_id");
