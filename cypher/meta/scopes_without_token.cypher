// The users (tenant, user_id) that have memories without a scope_token (written before the full-text
// index held tokens): graph/migrations.py gives them theirs, once (a scan of every memory).
MATCH (m:Memory) WHERE m.scope_token IS NULL
RETURN DISTINCT m.tenant AS tenant, m.user_id AS user_id
