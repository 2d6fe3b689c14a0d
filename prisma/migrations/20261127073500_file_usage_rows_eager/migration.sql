-- Every session and tenant has its file usage row from its creation on. A write checks the quotas
-- with both rows locked FOR UPDATE; a row its trigger creates later (at the store's first file) is
-- invisible to a write whose statement began before it was committed, so concurrent first writes
-- could each count the store as empty and together pass its quota.
CREATE FUNCTION session_file_usage_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO session_file_usage (session_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION tenant_file_usage_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_file_usage (tenant_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER session_file_usage_row AFTER INSERT ON session FOR EACH ROW EXECUTE FUNCTION session_file_usage_row();
CREATE TRIGGER tenant_file_usage_row AFTER INSERT ON tenant FOR EACH ROW EXECUTE FUNCTION tenant_file_usage_row();

INSERT INTO tenant_file_usage (tenant_id) SELECT id FROM tenant ON CONFLICT DO NOTHING;
INSERT INTO session_file_usage (session_id) SELECT id FROM session ON CONFLICT DO NOTHING;
