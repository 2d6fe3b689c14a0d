-- AlterTable
ALTER TABLE "api_key" ADD COLUMN     "rotated_at" TIMESTAMPTZ(3);
