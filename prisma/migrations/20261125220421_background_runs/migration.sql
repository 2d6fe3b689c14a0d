/*
  Warnings:

  - A unique constraint covering the columns `[fire_key]` on the table `task` will be added. If there are existing duplicate values, this will fail.

*/
-- AlterTable
ALTER TABLE "task" ADD COLUMN     "fire_key" TEXT,
ADD COLUMN     "output_truncated" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "task_fire_key_key" ON "task"("fire_key");
