// Add $delta to the active part of one memory of one user (feedback: +/-0.5 explicit, +/-0.2 implicit),
// clamped to [0, 1], and recompute the weight in the same statement. The right-hand side reads m.active,
// so Cypher takes the write lock before reading (and weights/lock ran first in the same transaction).
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m.active = CASE
      WHEN m.active + $delta > 1.0 THEN 1.0
      WHEN m.active + $delta < 0.0 THEN 0.0
      ELSE m.active + $delta END,
    m.feedback_count = coalesce(m.feedback_count, 0) + $count,
    m.last_feedback_at = CASE WHEN $count > 0 THEN $now ELSE m.last_feedback_at END
WITH m, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
RETURN m {.*, embedding: null} AS memory
