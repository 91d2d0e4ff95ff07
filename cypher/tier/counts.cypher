// How many memories one user holds in each tier. Superseded ones (valid_to set) are history, outside the
// tiers' capacities (ingest/tier_policy.py), so they are not counted.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
RETURN m.tier AS tier, count(m) AS n
