// The end of an ingest batch of one user, in one round trip (it took five): the batch's new turns (episode/
// write_batch with its $sessions, $episodes and $links; nothing before this in the batch reads them), its tier
// moves, mentions and feedback (tier/update with its $updates, none when empty), provenance, then what ingest
// reads once it has written. Provenance: (:Memory)-[:DERIVED_FROM]->(:Episode) for each of $derived
// ({memory_id, episode_id}: a memory and the turn that created or repeated it, both of the user). Then how
// many memories the user holds per tier (as tier/counts: superseded ones are history, not counted; over a
// capacity, ingest restores it and reads the memories again) and the memories $ids (episode/memories), to
// answer with their final state. Timestamps as ISO strings (graph/records.py parses them): the driver's
// DateTime hydration is slow.
CALL () {
  {{> episode/write_batch}}
}
CALL () {
  {{> tier/update}}
}
CALL () {
  UNWIND $derived AS l
  MATCH (m:Memory {id: l.memory_id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  MATCH (e:Episode {id: l.episode_id})
  WHERE e.tenant = $tenant AND e.user_id = $user_id
  MERGE (m)-[:DERIVED_FROM]->(e)
}
CALL () {
  MATCH (m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  WITH m.tier AS tier, count(m) AS n
  RETURN collect({tier: tier, n: n}) AS counts
}
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {id: id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id
  RETURN collect(m {.*, embedding: null, created_at: toString(m.created_at), valid_from: toString(m.valid_from),
            valid_to: toString(m.valid_to), last_mentioned_at: toString(m.last_mentioned_at),
            last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
            last_feedback_at: toString(m.last_feedback_at)}) AS memories
}
RETURN counts, memories
