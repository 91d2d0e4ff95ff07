// API keys: one node per key (id unique), listed per tenant. Only a salted hash of the secret is stored.
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
CREATE INDEX api_key_tenant IF NOT EXISTS FOR (k:ApiKey) ON (k.tenant)
