-- Secrets in the reference's vault shape: a kind, a header (name, description) and data whose key is
-- kept apart, encrypted. Rows written before keep working: a provider key, or a custom endpoint when
-- it has a base URL (its data is derived from the columns while `data` is null).
ALTER TABLE provider_secrets ADD COLUMN kind text NOT NULL DEFAULT 'provider_key';
ALTER TABLE provider_secrets ADD COLUMN description text;
ALTER TABLE provider_secrets ADD COLUMN data jsonb;
ALTER TABLE provider_secrets ADD COLUMN updated_at timestamptz;
ALTER TABLE provider_secrets ALTER COLUMN encrypted_key DROP NOT NULL;
UPDATE provider_secrets SET kind = 'custom_provider' WHERE base_url IS NOT NULL;
