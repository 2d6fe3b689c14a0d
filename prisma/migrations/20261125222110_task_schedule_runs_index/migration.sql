-- CreateIndex
CREATE INDEX "task_schedule_id_created_at_idx" ON "task"("schedule_id", "created_at");
