// An expression, included where a statement returns a candidate row's weight: memory m's final weight
// decayed to $weight_at_ms (epoch ms; null: as stored), weights/decay's formula read-only (passive *
// passive_keep ^ weeks, and for emotional memories passive and active * emotional_factor ^ days, since its
// last decay): recall ranks on the weight as of now, not as the last write left it. A locked memory does not
// decay (weights/decay): its weight is as stored.
CASE WHEN $weight_at_ms IS NULL OR m.locked OR $weight_at_ms <= coalesce(m.decayed_at, m.created_at).epochMillis THEN m.weight
     ELSE $passive_share * m.passive
            * $passive_keep ^ (($weight_at_ms - coalesce(m.decayed_at, m.created_at).epochMillis) / $week_ms)
            * CASE WHEN m.type = 'EMOTIONAL'
                   THEN $emotional_factor ^ (($weight_at_ms - coalesce(m.decayed_at, m.created_at).epochMillis) / $day_ms)
                   ELSE 1.0 END
          + $active_share * m.active
            * CASE WHEN m.type = 'EMOTIONAL'
                   THEN $emotional_factor ^ (($weight_at_ms - coalesce(m.decayed_at, m.created_at).epochMillis) / $day_ms)
                   ELSE 1.0 END
          + $preset_share * m.preset END
