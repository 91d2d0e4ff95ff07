// Give the memories of some users ($scopes: {tenant, user_id, token}, the token computed by
// graph/scope_token.py) that have no scope_token their user's token. Returns how many were given one.
UNWIND $scopes AS s
MATCH (m:Memory {tenant: s.tenant, user_id: s.user_id})
WHERE m.scope_token IS NULL
SET m.scope_token = s.token
RETURN count(m) AS tokened
