// The entity names one user's temp memories mention (the user themself left out): a later turn that
// names one of them picks that memory's topic up.
MATCH (m:Memory)-[:MENTIONS]->(e:Entity)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'temp' AND e.name <> 'user'
RETURN m.id AS id, collect(DISTINCT e.name) AS names
