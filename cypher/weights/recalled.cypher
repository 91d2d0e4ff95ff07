// Record that memories of one user were recalled: passive + $recall_boost (0.1, clamped), recall_count + 1,
// last_recalled_at = $now, weight recomputed in the same statement. Run after weights/lock and
// weights/decay in the same transaction, so the boost lands on the passive part as of $now.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
SET m.passive = CASE WHEN m.passive + $recall_boost > 1.0 THEN 1.0 ELSE m.passive + $recall_boost END,
    m.recall_count = coalesce(m.recall_count, 0) + 1,
    m.last_recalled_at = $now
WITH m, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
RETURN m.id AS id, m.weight AS weight
