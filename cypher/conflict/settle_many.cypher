// Record a new memory's conflicts with old ones and settle some, of one user, in one statement; either part
// may be empty. Timestamps come back as ISO strings (graph/records.py parses them): the driver's DateTime
// hydration is slow.
// 1. recorded: for each of $record ({id, reverse_id, old_id, kind, reason}, in order, position i) whose old memory
//    exists, the conflict recorded (idempotent on the derived id; BETWEEN {role} edges to both sides), after
//    write-locking the new memory $new_id and every old one found, all in id order, as weights/lock locks them.
//    A pair held for review the other way round (reverse_id, the conflict of (old, new), OPEN and recorded by
//    REVIEW; the item's own id not held too) is held: nothing is recorded, and the item's conflict is that one, as it
//    is (conflict/record alike). Per recorded item its position, the conflict, whether it was created now and, with
//    $with_memories, both memories as they stand then (new_id's and old_id's, as conflict/get_many reads them; null
//    without).
// 2. resolved: then, one after the other in the order of $resolve ({id, reverse_id, winner_id, loser_id},
//    position i), each open conflict settled exactly as conflict/resolve settles one (each sees what the ones
//    before it changed: the new memory's weight, carried associations, conflicts closed as moot; one with a memory
//    no longer live is closed as moot, neither memory touched). Run after weights/decay on their memories in the
//    same transaction. An item whose conflict is not OPEN, or whose pair is held for review either way (its
//    conflict, or the pair's the other way round, reverse_id, OPEN and recorded by REVIEW: only the user settles
//    it, through conflict/resolve; this statement settles for the system), or a memory gone, changes nothing and
//    is left out. Per settled item its position and what conflict/resolve returns: the conflict with both memories
//    right after (conflict/settle_pair, the text conflict/resolve runs too).
// 0. First the memories $ids (none when empty) are decayed to $now exactly as weights/decay decays them (with its
//    $with_before; locked ones do not decay): a settlement decays its memories before reading them, and in this statement
//    that is no round trip of its own.
CALL () {
  {{> weights/decay}}
}
WITH count(*) AS decayed
CALL () {
  MATCH (n:Memory {id: $new_id})
  WHERE n.tenant = $tenant AND n.user_id = $user_id AND size($record) > 0
  CALL (n) {
    MATCH (o:Memory)
    WHERE o.id IN [item IN $record | item.old_id] AND o.tenant = $tenant AND o.user_id = $user_id
    WITH n, collect(o) AS olds
    UNWIND olds + [n] AS m
    WITH DISTINCT m
    ORDER BY m.id
    SET m._lock = true
    REMOVE m._lock
  }
  UNWIND range(0, size($record) - 1) AS i
  WITH n, i, $record[i] AS item
  MATCH (o:Memory {id: item.old_id})
  WHERE o.tenant = $tenant AND o.user_id = $user_id
{{> conflict/record_item}}
  WITH i, n, o, coalesce(c, r) AS c, coalesce(created, false) AS created
  WHERE c IS NOT NULL
  RETURN collect({i: i, conflict: c {.*, created_at: toString(c.created_at), resolved_at: toString(c.resolved_at)},
                  created: created,
                  new_memory: CASE WHEN $with_memories THEN n {.*, embedding: null, created_at: toString(n.created_at),
                    valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
                    last_mentioned_at: toString(n.last_mentioned_at), last_recalled_at: toString(n.last_recalled_at),
                    decayed_at: toString(n.decayed_at), last_feedback_at: toString(n.last_feedback_at)} END,
                  old_memory: CASE WHEN $with_memories THEN o {.*, embedding: null, created_at: toString(o.created_at),
                    valid_from: toString(o.valid_from), valid_to: toString(o.valid_to),
                    last_mentioned_at: toString(o.last_mentioned_at), last_recalled_at: toString(o.last_recalled_at),
                    decayed_at: toString(o.decayed_at), last_feedback_at: toString(o.last_feedback_at)} END})
         AS recorded
}
CALL () {
  UNWIND range(0, size($resolve) - 1) AS i
  CALL (i) {
    WITH $resolve[i] AS item
    MATCH (c:Conflict {id: item.id})
    WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
      AND coalesce(c.strategy, '') <> 'REVIEW'
      AND NOT EXISTS { MATCH (r:Conflict {id: item.reverse_id})
                       WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.status = 'OPEN'
                         AND r.strategy = 'REVIEW' }
    MATCH (w:Memory {id: item.winner_id}), (l:Memory {id: item.loser_id})
    WHERE w.tenant = $tenant AND w.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
    {{> conflict/settle_pair}}
  }
  RETURN collect({i: i, conflict: conflict, new_memory: new_memory, old_memory: old_memory}) AS resolved
}
RETURN recorded, resolved
