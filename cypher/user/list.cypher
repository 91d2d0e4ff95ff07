// A page of one tenant's users in id order (keyset on user_id, after $after; "" for the first page), each with
// how many memories it holds and when it was last active, without reading any user's memories one by one:
// - the users through the User key constraint's index, read in its order (the ORDER BY names the whole key, so
//   the index gives the order and LIMIT stops the read: no sort of all the tenant's users);
// - history: the user's superseded memories (valid_to set), counted from the (tenant, user_id, valid_to) index
//   (schema 130), which holds history alone: as many entries read as the user has history, none for live ones;
// - memories: the live ones (what memory/list lists without $include_history): the degree of the user's
//   HAS_MEMORY edges (every memory hangs off its User node, live ones and history), read from the node's
//   relationship counts, less the history;
// - memory_at / episode_at: the newest memory's created_at and the newest turn's at, each the last entry of
//   the (tenant, user_id, time) index (schema 120), read from its end (the ORDER BY again names the index's
//   whole key: ordering by the time alone made Neo4j read and sort every entry of the user).
MATCH (u:User)
WHERE u.tenant = $tenant AND u.user_id > $after
WITH u
ORDER BY u.tenant, u.user_id
LIMIT $limit
OPTIONAL CALL (u) {
  MATCH (m:Memory)
  USING INDEX m:Memory(tenant, user_id, created_at)
  WHERE m.tenant = $tenant AND m.user_id = u.user_id AND m.created_at IS NOT NULL
  WITH m
  ORDER BY m.tenant DESC, m.user_id DESC, m.created_at DESC
  LIMIT 1
  RETURN m.created_at AS memory_at
}
OPTIONAL CALL (u) {
  MATCH (e:Episode)
  USING INDEX e:Episode(tenant, user_id, at)
  WHERE e.tenant = $tenant AND e.user_id = u.user_id AND e.at IS NOT NULL
  WITH e
  ORDER BY e.tenant DESC, e.user_id DESC, e.at DESC
  LIMIT 1
  RETURN e.at AS episode_at
}
CALL (u) {
  MATCH (m:Memory)
  USING INDEX m:Memory(tenant, user_id, valid_to)
  WHERE m.tenant = $tenant AND m.user_id = u.user_id AND m.valid_to IS NOT NULL
  RETURN count(m) AS history
}
RETURN u.user_id AS user_id, COUNT { (u)-[:HAS_MEMORY]->() } - history AS memories, history,
       toString(memory_at) AS memory_at, toString(episode_at) AS episode_at
ORDER BY user_id
