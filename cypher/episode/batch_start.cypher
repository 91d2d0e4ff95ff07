// What an ingest batch of one user starts from, in one round trip (it took four statements): with $now, the
// user's write lock first, as tier/lock_user takes it (the user created when missing); then which of the
// episode ids $ids the user already has, with what was said (an idempotent re-ingest finds them all; another
// text under the same id is a conflict), how many memories the user holds per tier (as tier/counts: superseded
// ones are history, not counted) and, with $temp, the entity names each live temp memory mentions, the user
// left out (a later turn naming one picks that memory's topic up; a superseded one is history, not picked
// up), and whether the user has memories whose after-store hooks were left pending since before
// $hooks_before (null: not asked; IngestUseCases.resume_hooks then runs them after the batch), found through
// the index of the few pending ones. Collected in one row.
// Times come as ISO text ($now, $hooks_before; graph/records.py time_param).
CALL () {
  WITH datetime($now) AS now
  WHERE now IS NOT NULL
  MERGE (u:User {tenant: $tenant, user_id: $user_id})
    ON CREATE SET u.created_at = now
  SET u.tier_lock = true
  REMOVE u.tier_lock
}
CALL () {
  UNWIND $ids AS id
  MATCH (e:Episode {id: id})
  WHERE e.tenant = $tenant AND e.user_id = $user_id
  RETURN collect({id: e.id, speaker: e.speaker, text: e.text}) AS existing
}
CALL () {
  MATCH (m:Memory)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  WITH m.tier AS tier, count(m) AS n
  RETURN collect({tier: tier, n: n}) AS counts
}
CALL () {
  WITH $temp AS temp
  WHERE temp
  MATCH (m:Memory)-[:MENTIONS]->(e:Entity)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.tier = 'temp' AND m.valid_to IS NULL
    AND e.name <> 'user'
  WITH m, collect(DISTINCT e.name) AS names
  RETURN collect({id: m.id, names: names}) AS temp
}
CALL () {
  OPTIONAL MATCH (m:Memory)
  USING INDEX m:Memory(hooks_pending_at)
  WHERE m.hooks_pending_at < datetime($hooks_before) AND m.tenant = $tenant AND m.user_id = $user_id
  RETURN count(m) > 0 AS hooks_left
}
RETURN existing, counts, temp, hooks_left
