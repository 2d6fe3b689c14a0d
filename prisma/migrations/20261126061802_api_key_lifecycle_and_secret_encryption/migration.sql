-- AlterTable
ALTER TABLE "api_key" ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "registered_tool" ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_signing_secret" TEXT;
