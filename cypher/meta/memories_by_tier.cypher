// Live memories by tier across all tenants, for the /metrics gauge (no tenant data leaves: counts only).
MATCH (m:Memory)
WHERE m.valid_to IS NULL
RETURN m.tier AS tier, count(m) AS n
