// Apply tier moves, mentions and active-weight feedback to memories of one user, one row of $updates
// each: {id, tier (new tier or null), mentions (to add), mentioned_at (or null), moved_at (or null),
// active_delta}. A locked memory is never moved except into core; active is clamped to [0, 1] and the final
// weight recomputed from its parts only when active changed. locked follows the tier (core = locked);
// tier_since is when a memory entered its tier (moved_at, else the mention that moved it): the tier rules'
// clocks start there (ingest/tier_policy.py). Times come as ISO text (graph/records.py time_param).
UNWIND $updates AS row
WITH row {.*, mentioned_at: datetime(row.mentioned_at), moved_at: datetime(row.moved_at)} AS u
MATCH (m:Memory {id: u.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND (u.tier IS NULL OR u.tier = m.tier OR u.tier = 'core' OR NOT m.locked)
WITH m, u, m.tier AS before
SET m.mention_count = coalesce(m.mention_count, 0) + u.mentions,
    m.last_mentioned_at = CASE
      WHEN u.mentioned_at IS NULL THEN m.last_mentioned_at
      WHEN m.last_mentioned_at IS NULL OR u.mentioned_at > m.last_mentioned_at THEN u.mentioned_at
      ELSE m.last_mentioned_at END,
    m.tier = coalesce(u.tier, m.tier),
    m.tier_since = CASE WHEN u.tier IS NOT NULL AND u.tier <> before
                        THEN coalesce(u.moved_at, u.mentioned_at, m.tier_since) ELSE m.tier_since END
SET m.locked = (m.tier = 'core')
WITH m, u, before
CALL (m, u) {
  WITH m, u WHERE u.active_delta <> 0
  WITH m, u, m.active + u.active_delta AS a
  SET m.active = CASE WHEN a < 0.0 THEN 0.0 WHEN a > 1.0 THEN 1.0 ELSE a END
  WITH m, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
  SET m.weight = CASE WHEN w < 0.0 THEN 0.0 WHEN w > 1.0 THEN 1.0 ELSE w END
}
// One row, the results collected in a list: the driver handles each record in Python (~12 us a row).
RETURN collect({id: m.id, before: before, tier: m.tier}) AS rows
