// Bring memories' weights up to $now (ingest/weights.py `decayed` is the reference): passive *
// passive_keep ^ weeks (5 % a week, compounded over the elapsed fraction of weeks), and for emotional
// memories passive and active also * emotional_factor ^ days (the scenario factor); the weight is
// recomputed in the same SET and decayed_at moves to $now. Decay is path independent (decaying at t1 then
// t2 equals decaying once at t2). The memories are named by $ids and found by the unique id index (a
// "$ids IS NULL OR" disjunction made the planner filter all of a user's memories: 161 ms per recall for a
// 100k-memory user; weights/user_memory_ids lists a whole user). A locked (core) memory does not decay:
// only the user changes it (DESIGN.md "Tiers"), and time is not the user; its decay clock stops while it is
// locked (tier/unlock restarts it). Returns the before-image of every changed memory (null unless
// $with_before).
// Each memory is write-locked (in id order, so two transactions never wait on each other in a cycle)
// before its parts are read: a concurrent update is never lost (what weights/lock does, in this statement).
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.tenant = $tenant AND m.user_id = $user_id
WITH m ORDER BY m.id
SET m._lock = true
REMOVE m._lock
WITH m, $now.epochMillis - coalesce(m.decayed_at, m.created_at).epochMillis AS ms
WHERE ms > 0 AND NOT m.locked
WITH m, CASE WHEN $with_before THEN m {.*, embedding: null} END AS before, ms / $week_ms AS weeks,
     ms / $day_ms AS days, m.type = 'EMOTIONAL' AS emotional
WITH m, before, weeks, emotional, CASE WHEN emotional THEN $emotional_factor ^ days ELSE 1.0 END AS fade
WITH m, before, m.passive * $passive_keep ^ weeks * fade AS p,
     CASE WHEN emotional THEN m.active * fade ELSE m.active END AS a
SET m.passive = CASE WHEN p > 1.0 THEN 1.0 WHEN p < 0.0 THEN 0.0 ELSE p END,
    m.active = CASE WHEN a > 1.0 THEN 1.0 WHEN a < 0.0 THEN 0.0 ELSE a END,
    m.decayed_at = $now
WITH m, before, $passive_share * m.passive + $active_share * m.active + $preset_share * m.preset AS w
SET m.weight = CASE WHEN w > 1.0 THEN 1.0 WHEN w < 0.0 THEN 0.0 ELSE w END
RETURN m.id AS id, before, m.weight AS weight
