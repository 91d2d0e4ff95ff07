// The tier state of one user's memories in the given tiers: what the tier rules decide on. The weight
// parts, type and last decay (decayed_at, else created_at) let the rules weigh each memory as of now
// (ingest/tier_policy.py); superseded (valid_to set: history) and in_open_conflict (held for review) mark
// the memories the system never removes. For the sweep ($durable_predicates not null; capacity enforcement on
// ingest's path reads none of it): succeeds_kept, the winners of conflicts with mid or core memories, and
// durable, the memories stating a live triple with one of $durable_predicates (tier/durable: the user's lasting
// knowledge): never stale. The open conflicts are read once through the conflict_scope
// index instead of a pattern test per memory. Times as ISO text (graph/records.py parses them).
CALL () {
  OPTIONAL MATCH (c:Conflict)-[:BETWEEN]->(x:Memory)
  WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
  RETURN collect(x.id) AS held
}
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier IN $tiers
RETURN m.id AS id, m.tier AS tier, m.locked AS locked, m.weight AS weight, m.type AS type,
       m.passive AS passive, m.active AS active, m.preset AS preset, m.preset_kind AS preset_kind,
       m.mention_count AS mention_count, toString(m.last_mentioned_at) AS last_mentioned_at,
       toString(m.created_at) AS created_at, toString(coalesce(m.decayed_at, m.created_at)) AS decayed_at,
       toString(m.tier_since) AS tier_since, toString(m.last_recalled_at) AS last_recalled_at,
       m.valid_to IS NOT NULL AS superseded, m.id IN held AS in_open_conflict,
       CASE WHEN $durable_predicates IS NULL THEN false
            ELSE EXISTS { MATCH (m)-[:SUPERSEDES]->(l:Memory) WHERE l.tier IN ['mid', 'core'] } END AS succeeds_kept,
       CASE WHEN $durable_predicates IS NULL THEN false ELSE {{> tier/durable}} END AS durable
