-- CreateEnum
CREATE TYPE "batch_status" AS ENUM ('RUNNING', 'COMPLETED');

-- CreateEnum
CREATE TYPE "call_status" AS ENUM ('QUEUED', 'AWAITING_APPROVAL', 'RUNNING', 'PENDING_EXTERNAL', 'SUCCEEDED', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "task_state" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED');

-- CreateTable
CREATE TABLE "tenant" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "allow_self_approval" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_key" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "roles" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "title" TEXT,
    "metadata" JSONB,
    "todos" JSONB NOT NULL DEFAULT '[]',
    "event_seq" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_batch" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "batch_id" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_hash" TEXT NOT NULL,
    "status" "batch_status" NOT NULL DEFAULT 'RUNNING',
    "call_count" INTEGER NOT NULL,
    "pending_count" INTEGER NOT NULL,
    "submitted_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "tool_batch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_call" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "batch_row_id" UUID NOT NULL,
    "call_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "args" JSONB NOT NULL,
    "scheduling" TEXT NOT NULL,
    "status" "call_status" NOT NULL DEFAULT 'QUEUED',
    "output" JSONB,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL,
    "timeout_ms" INTEGER NOT NULL,
    "duration_ms" INTEGER,
    "worker_id" TEXT,
    "submitted_by" UUID,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "heartbeat_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    "deadline_at" TIMESTAMPTZ(3),
    "decided_by" UUID,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "tool_call_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event" (
    "session_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "batch_id" TEXT,
    "call_id" TEXT,
    "task_id" UUID,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateTable
CREATE TABLE "session_file" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "path" TEXT NOT NULL,
    "is_directory" BOOLEAN NOT NULL,
    "content" TEXT,
    "size" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_message" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "state" "task_state" NOT NULL DEFAULT 'QUEUED',
    "run_id" TEXT,
    "title" TEXT,
    "tool" TEXT,
    "spec" JSONB NOT NULL,
    "state_detail" TEXT,
    "progress" JSONB,
    "output_tail" TEXT NOT NULL DEFAULT '',
    "output_size" INTEGER NOT NULL DEFAULT 0,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    "summary" TEXT,
    "result_path" TEXT,
    "log_path" TEXT,
    "error" TEXT,
    "schedule_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "cron_expression" TEXT,
    "scheduled_at" TIMESTAMPTZ(3),
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "spec" JSONB NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "task_id" UUID,
    "next_trigger_at" TIMESTAMPTZ(3),
    "last_trigger_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "canceled_at" TIMESTAMPTZ(3),

    CONSTRAINT "schedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "registered_tool" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "url" TEXT,
    "signing_secret" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "registered_tool_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_name_key" ON "tenant"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_key_key_hash_key" ON "api_key"("key_hash");

-- CreateIndex
CREATE INDEX "api_key_tenant_id_idx" ON "api_key"("tenant_id");

-- CreateIndex
CREATE INDEX "session_tenant_id_created_at_id_idx" ON "session"("tenant_id", "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "tool_batch_session_id_created_at_id_idx" ON "tool_batch"("session_id", "created_at" DESC, "id");

-- CreateIndex
CREATE UNIQUE INDEX "tool_batch_session_id_batch_id_key" ON "tool_batch"("session_id", "batch_id");

-- CreateIndex
CREATE INDEX "tool_call_batch_row_id_position_idx" ON "tool_call"("batch_row_id", "position");

-- CreateIndex
CREATE INDEX "tool_call_status_heartbeat_at_idx" ON "tool_call"("status", "heartbeat_at");

-- CreateIndex
CREATE UNIQUE INDEX "tool_call_session_id_call_id_key" ON "tool_call"("session_id", "call_id");

-- CreateIndex
CREATE INDEX "event_created_at_idx" ON "event"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "session_file_session_id_path_key" ON "session_file"("session_id", "path");

-- CreateIndex
CREATE INDEX "session_message_session_id_created_at_idx" ON "session_message"("session_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "task_run_id_key" ON "task"("run_id");

-- CreateIndex
CREATE INDEX "task_session_id_state_kind_idx" ON "task"("session_id", "state", "kind");

-- CreateIndex
CREATE INDEX "task_state_heartbeat_at_idx" ON "task"("state", "heartbeat_at");

-- CreateIndex
CREATE INDEX "schedule_session_id_enabled_idx" ON "schedule"("session_id", "enabled");

-- CreateIndex
CREATE UNIQUE INDEX "registered_tool_tenant_id_name_key" ON "registered_tool"("tenant_id", "name");

-- AddForeignKey
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_batch" ADD CONSTRAINT "tool_batch_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_call" ADD CONSTRAINT "tool_call_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_call" ADD CONSTRAINT "tool_call_batch_row_id_fkey" FOREIGN KEY ("batch_row_id") REFERENCES "tool_batch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event" ADD CONSTRAINT "event_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_file" ADD CONSTRAINT "session_file_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_message" ADD CONSTRAINT "session_message_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule" ADD CONSTRAINT "schedule_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "registered_tool" ADD CONSTRAINT "registered_tool_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
