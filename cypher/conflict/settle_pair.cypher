// (Included by conflict/resolve and conflict/settle_many.) Settle the open conflict c of one user between winner
// w and loser l, matched by the caller, and answer it. When either memory is no longer live (superseded since the
// conflict was recorded) neither is touched and the conflict is closed as moot (RESOLVED, resolved_by
// 'superseded', no winner or loser: graph/conflicts.py MOOT). Else: winner active + $winner_bonus (a locked winner
// kept as it is when $spare_locked: the system never changes a locked memory on its own), loser active -
// $loser_penalty (both clamped, weights recomputed here), (w)-[:SUPERSEDES {penalty}]->(l) keeping what the
// penalty took from the loser's active part (less than $loser_penalty when clamped at 0: the remains get back only
// that, bmam/usecases/remains.py), the loser's valid_to and its triples' set to when the winner was said (valid
// time: a conversation ingested later keeps its history; a winner said before the loser leaves the loser an empty
// validity, its valid_from), the loser's other OPEN conflicts closed as moot, its associations taken off it (history
// is linked to nothing) and, for a CORRECTION only, carried to the winner (one edge per pair from the smaller id; onto
// an edge the winner already has, the stronger stands, with who formed it, unless the user set the winner's: the
// user's word on that pair stands). A correction is the old memory said right, in its place; any other winner is a
// change, a new memory about a new state with the associations it formed when stored: the old partner's, job's or
// home's links are the old value's ("Jake is a chef" went to "I've been seeing Chen Hao"). Returns conflict, new_memory,
// old_memory as conflict/get reads them (timestamps as ISO strings: graph/records.py parses them; the driver's
// DateTime hydration is slow).
CALL (c, w, l) {
  WITH c, w, l
  WHERE w.valid_to IS NOT NULL OR l.valid_to IS NOT NULL
  SET c.status = 'RESOLVED', c.resolved_at = $now, c.resolved_by = 'superseded'
}
CALL (c, w, l) {
  WITH c, w, l, l.active AS loser_active
  WHERE c.status = 'OPEN'
  SET w.active = CASE WHEN w.locked AND $spare_locked THEN w.active
                      WHEN w.active + $winner_bonus > 1.0 THEN 1.0 ELSE w.active + $winner_bonus END,
      l.active = CASE WHEN l.active - $loser_penalty < 0.0 THEN 0.0 ELSE l.active - $loser_penalty END,
      l.valid_to = CASE WHEN coalesce(w.valid_from, $now) > coalesce(l.valid_from, $now)
                       THEN coalesce(w.valid_from, $now) ELSE coalesce(l.valid_from, $now) END
  // A locked loser (only the user's settlement supersedes one) leaves core as tier/unlock takes it out: history
  // is outside the tiers and takes no room, and core is locked, so a loser left CORE and locked looked live and
  // made forget ask for confirm
  WITH c, w, l, loser_active, coalesce(l.locked, false) AS was_locked
  SET l.tier = CASE WHEN was_locked THEN 'mid' ELSE l.tier END, l.locked = false,
      l.tier_since = CASE WHEN was_locked THEN $now ELSE l.tier_since END,
      l.decayed_at = CASE WHEN was_locked THEN $now ELSE l.decayed_at END
  WITH c, w, l, loser_active,
       $passive_share * w.passive + $active_share * w.active + $preset_share * w.preset AS ww,
       $passive_share * l.passive + $active_share * l.active + $preset_share * l.preset AS lw
  SET w.weight = CASE WHEN ww > 1.0 THEN 1.0 WHEN ww < 0.0 THEN 0.0 ELSE ww END,
      l.weight = CASE WHEN lw > 1.0 THEN 1.0 WHEN lw < 0.0 THEN 0.0 ELSE lw END,
      c.status = 'RESOLVED', c.winner_id = w.id, c.loser_id = l.id, c.resolved_at = $now,
      c.resolved_by = $resolved_by
  MERGE (w)-[s:SUPERSEDES]->(l)
    ON CREATE SET s.tenant = $tenant, s.user_id = $user_id, s.conflict_id = c.id, s.at = $now,
                    s.penalty = loser_active - l.active
  WITH c, w, l
  CALL (l) {
    MATCH ()-[t:TRIPLE {memory_id: l.id}]->()
    WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
    SET t.valid_to = l.valid_to
  }
  CALL (l) {
    MATCH (x:Conflict)-[:BETWEEN]->(l)
    WHERE x.tenant = $tenant AND x.user_id = $user_id AND x.status = 'OPEN'
    SET x.status = 'RESOLVED', x.resolved_at = $now, x.resolved_by = 'superseded'
  }
  CALL (c, w, l) {
    MATCH (l)-[r:ASSOCIATED]-(x:Memory)
    WHERE x.tenant = $tenant AND x.user_id = $user_id
    // how each formed goes with it (formed_by: stored, terms, recalled, user), as every edge names it
    WITH c, w, x, r, r.strength AS strength, r.formed_by AS formed_by
    DELETE r
    WITH w, x, strength, formed_by WHERE x <> w AND c.kind = 'CORRECTION'
    CALL (w, x, strength, formed_by) {
      WITH w, x, strength, formed_by WHERE w.id < x.id
      MERGE (w)-[n:ASSOCIATED]->(x)
        ON CREATE SET n.strength = strength, n.created_at = $now, n.tenant = $tenant, n.user_id = $user_id,
                      n.formed_by = formed_by
      WITH n, strength, formed_by, coalesce(n.formed_by, '') = 'user' OR coalesce(n.strength, 0.0) >= strength AS stands
      SET n.strength = CASE WHEN stands THEN n.strength ELSE strength END,
          n.formed_by = CASE WHEN stands THEN n.formed_by ELSE formed_by END,
          n.updated_at = $now
    }
    CALL (w, x, strength, formed_by) {
      WITH w, x, strength, formed_by WHERE x.id < w.id
      MERGE (x)-[n:ASSOCIATED]->(w)
        ON CREATE SET n.strength = strength, n.created_at = $now, n.tenant = $tenant, n.user_id = $user_id,
                      n.formed_by = formed_by
      WITH n, strength, formed_by, coalesce(n.formed_by, '') = 'user' OR coalesce(n.strength, 0.0) >= strength AS stands
      SET n.strength = CASE WHEN stands THEN n.strength ELSE strength END,
          n.formed_by = CASE WHEN stands THEN n.formed_by ELSE formed_by END,
          n.updated_at = $now
    }
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
