// Settle several open conflicts of one user, one after the other in the order of $items ({id, winner_id,
// loser_id}, position i), each exactly as conflict/resolve settles one (the subquery runs row after row, so
// each settlement sees what the ones before it changed: the new memory's weight, carried associations).
// Run after weights/lock and weights/decay on their memories in the same transaction. An item whose conflict
// is no longer OPEN (or a memory gone) changes nothing and has no row. Returns per settled item its position
// and what conflict/resolve returns: the conflict with both memories as they are right after it.
// Timestamps as ISO strings (graph/records.py parses them): the driver's DateTime hydration is slow.
UNWIND range(0, size($items) - 1) AS i
CALL (i) {
  WITH $items[i] AS item
  MATCH (c:Conflict {id: item.id})
  WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
  MATCH (w:Memory {id: item.winner_id}), (l:Memory {id: item.loser_id})
  WHERE w.tenant = $tenant AND w.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
  SET w.active = CASE WHEN w.active + $winner_bonus > 1.0 THEN 1.0 ELSE w.active + $winner_bonus END,
      l.active = CASE WHEN l.active - $loser_penalty < 0.0 THEN 0.0 ELSE l.active - $loser_penalty END,
      l.valid_to = $now
  WITH c, w, l,
       $passive_share * w.passive + $active_share * w.active + $preset_share * w.preset AS ww,
       $passive_share * l.passive + $active_share * l.active + $preset_share * l.preset AS lw
  SET w.weight = CASE WHEN ww > 1.0 THEN 1.0 WHEN ww < 0.0 THEN 0.0 ELSE ww END,
      l.weight = CASE WHEN lw > 1.0 THEN 1.0 WHEN lw < 0.0 THEN 0.0 ELSE lw END,
      c.status = 'RESOLVED', c.winner_id = w.id, c.loser_id = l.id, c.resolved_at = $now,
      c.resolved_by = $resolved_by
  MERGE (w)-[s:SUPERSEDES]->(l)
    ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.conflict_id = c.id, s.at = $now
  WITH c, w, l
  CALL (l) {
    MATCH ()-[t:TRIPLE {memory_id: l.id}]->()
    WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
    SET t.valid_to = $now
  }
  CALL (w, l) {
    MATCH (l)-[r:ASSOCIATED]-(x:Memory)
    WHERE x.tenant = $tenant AND x.user_id = $user_id
    WITH w, x, r, r.strength AS strength
    DELETE r
    WITH w, x, strength WHERE x <> w
    CALL (w, x, strength) {
      WITH w, x, strength WHERE w.id < x.id
      MERGE (w)-[n:ASSOCIATED]->(x)
        ON CREATE SET n.strength = strength, n.created_at = $now, n.tenant = $tenant, n.user_id = $user_id
        ON MATCH SET n.strength = CASE WHEN n.strength < strength THEN strength ELSE n.strength END
      SET n.updated_at = $now
    }
    CALL (w, x, strength) {
      WITH w, x, strength WHERE x.id < w.id
      MERGE (x)-[n:ASSOCIATED]->(w)
        ON CREATE SET n.strength = strength, n.created_at = $now, n.tenant = $tenant, n.user_id = $user_id
        ON MATCH SET n.strength = CASE WHEN n.strength < strength THEN strength ELSE n.strength END
      SET n.updated_at = $now
    }
  }
  WITH c, CASE WHEN w.id = c.new_id THEN w ELSE l END AS n, CASE WHEN w.id = c.new_id THEN l ELSE w END AS o
  RETURN c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)} AS conflict,
         n {.*, embedding: null, created_at: toString(n.created_at), valid_from: toString(n.valid_from),
            valid_to: toString(n.valid_to), last_mentioned_at: toString(n.last_mentioned_at),
            last_recalled_at: toString(n.last_recalled_at), decayed_at: toString(n.decayed_at),
            last_feedback_at: toString(n.last_feedback_at)} AS new_memory,
         o {.*, embedding: null, created_at: toString(o.created_at), valid_from: toString(o.valid_from),
            valid_to: toString(o.valid_to), last_mentioned_at: toString(o.last_mentioned_at),
            last_recalled_at: toString(o.last_recalled_at), decayed_at: toString(o.decayed_at),
            last_feedback_at: toString(o.last_feedback_at)} AS old_memory
}
RETURN i, conflict, new_memory, old_memory
