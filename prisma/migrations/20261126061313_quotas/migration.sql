-- CreateTable
CREATE TABLE "tenant_limits" (
    "tenant_id" UUID NOT NULL,
    "running_calls" INTEGER,
    "background_runs" INTEGER,
    "session_file_bytes" BIGINT,
    "session_files" INTEGER,
    "tenant_file_bytes" BIGINT,
    "tenant_files" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_limits_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "session_file_usage" (
    "session_id" UUID NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "files" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "session_file_usage_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "tenant_file_usage" (
    "tenant_id" UUID NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "files" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tenant_file_usage_pkey" PRIMARY KEY ("tenant_id")
);

-- AddForeignKey
ALTER TABLE "tenant_limits" ADD CONSTRAINT "tenant_limits_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_file_usage" ADD CONSTRAINT "session_file_usage_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_file_usage" ADD CONSTRAINT "tenant_file_usage_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What each session's file store and each tenant's file stores hold, kept by statement triggers on
-- session_file (any writer, one update of the usage rows per statement, rows locked in id order).
CREATE FUNCTION file_usage_apply(sessions uuid[], bytes bigint[], files bigint[]) RETURNS void LANGUAGE sql AS $$
  WITH d AS (
    SELECT d.session_id, s.tenant_id, d.bytes, d.files
      FROM unnest(sessions, bytes, files) AS d(session_id, bytes, files)
      JOIN session s ON s.id = d.session_id
     WHERE d.bytes <> 0 OR d.files <> 0
  ), per_session AS (
    INSERT INTO session_file_usage AS u (session_id, bytes, files)
    SELECT session_id, bytes, files FROM d ORDER BY session_id
    ON CONFLICT (session_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes, files = u.files + EXCLUDED.files
  ), per_tenant AS (
    INSERT INTO tenant_file_usage AS u (tenant_id, bytes, files)
    SELECT tenant_id, sum(bytes), sum(files) FROM d GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes, files = u.files + EXCLUDED.files
  )
  SELECT
$$;

CREATE FUNCTION session_file_usage_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM file_usage_apply(array_agg(session_id ORDER BY session_id), array_agg(bytes ORDER BY session_id), array_agg(files ORDER BY session_id))
     FROM (SELECT session_id, sum(size)::bigint AS bytes, count(*)::bigint AS files FROM new_rows GROUP BY session_id) AS d;
  RETURN NULL;
END $$;

CREATE FUNCTION session_file_usage_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM file_usage_apply(array_agg(session_id ORDER BY session_id), array_agg(bytes ORDER BY session_id), array_agg(files ORDER BY session_id))
     FROM (SELECT n.session_id, sum(n.size - o.size)::bigint AS bytes, 0::bigint AS files
             FROM new_rows n JOIN old_rows o ON o.id = n.id GROUP BY n.session_id) AS d;
  RETURN NULL;
END $$;

CREATE FUNCTION session_file_usage_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM file_usage_apply(array_agg(session_id ORDER BY session_id), array_agg(bytes ORDER BY session_id), array_agg(files ORDER BY session_id))
     FROM (SELECT session_id, -sum(size)::bigint AS bytes, -count(*)::bigint AS files FROM old_rows GROUP BY session_id) AS d;
  RETURN NULL;
END $$;

CREATE TRIGGER session_file_usage_inserted AFTER INSERT ON session_file REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION session_file_usage_inserted();
CREATE TRIGGER session_file_usage_updated AFTER UPDATE ON session_file REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION session_file_usage_updated();
CREATE TRIGGER session_file_usage_deleted AFTER DELETE ON session_file REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION session_file_usage_deleted();

-- What the store held before the triggers.
INSERT INTO session_file_usage (session_id, bytes, files)
SELECT session_id, sum(size), count(*) FROM session_file GROUP BY session_id;
INSERT INTO tenant_file_usage (tenant_id, bytes, files)
SELECT s.tenant_id, sum(f.size), count(*) FROM session_file f JOIN session s ON s.id = f.session_id GROUP BY s.tenant_id;
