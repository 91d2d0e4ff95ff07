// Every memory id of one user (what a whole-user decay pass names in weights/decay).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.id AS id
