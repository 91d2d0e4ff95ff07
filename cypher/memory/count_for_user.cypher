// How many live memories a user has (chooses exact scan versus the vector index).
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN count(m) AS n
