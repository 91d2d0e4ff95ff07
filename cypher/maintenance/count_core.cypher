// Quick check: how many core memories a tenant (one user or all) has.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND ($user_id IS NULL OR m.user_id = $user_id) AND m.tier = 'core'
  AND m.valid_to IS NULL  // superseded history is outside the tiers (a corrected core memory keeps tier 'core')
RETURN count(m) AS n
