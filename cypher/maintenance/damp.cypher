// Rebalance, damp: every live, unlocked, non-safety memory of one user whose weight is above $damp_above
// (+ a 1e-9 slack) loses $damp_by of final weight: passive and active are scaled by the same k so that
// 0.6 p + 0.3 a drops by exactly $damp_by (ingest/weights.py `damped`). Returns the before-images.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked AND m.valid_to IS NULL
  AND m.preset_kind <> 'safety' AND m.weight > $damp_above + $epsilon
WITH m, m {.*, embedding: null} AS before, $passive_share * m.passive + $active_share * m.active AS variable
WHERE variable > 0.0
WITH m, before, (variable - $damp_by) / variable AS k
WITH m, before, CASE WHEN k < 0.0 THEN 0.0 ELSE k END AS k
WITH m, before, m.passive * k AS p, m.active * k AS a
SET m.passive = CASE WHEN p > 1.0 THEN 1.0 WHEN p < 0.0 THEN 0.0 ELSE p END,
    m.active = CASE WHEN a > 1.0 THEN 1.0 WHEN a < 0.0 THEN 0.0 ELSE a END
WITH m, before, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
RETURN m.id AS id, before, m.weight AS weight
ORDER BY id
