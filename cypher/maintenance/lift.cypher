// Rebalance, lift: live, unlocked memories of one user that are valuable (active >= $lift_active_min: the
// user engaged with it; or mentioned >= $lift_mentions_min times) but low-frequency (recalled at most
// $lift_max_recalls times) and weigh less than $lift_below get their passive part raised to
// $lift_passive_floor (ingest/weights.py `lifted`; raising to a floor is idempotent). Never a temporary one
// (weather, a one-off plan): its preset says it is not for keeping.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked AND m.valid_to IS NULL
  AND coalesce(m.preset_kind, '') <> 'temporary'
  AND (m.active >= $lift_active_min OR coalesce(m.mention_count, 0) >= $lift_mentions_min)
  AND coalesce(m.recall_count, 0) <= $lift_max_recalls
  AND m.weight < $lift_below AND m.passive < $lift_passive_floor
WITH m, m {.*, embedding: null} AS before
SET m.passive = $lift_passive_floor
WITH m, before, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
RETURN m.id AS id, before, m.weight AS weight
ORDER BY id
