// relatedSearch: from one memory of one user, the memories reachable over at most {{depth}} hops, each
// with its best path and that path's score (the product of the strengths along it). A hop is an
// ASSOCIATED edge (its strength) or a shared entity, memory-[:MENTIONS]->entity<-[:MENTIONS]-memory, whose
// strength comes from the entity's degree: min(1, $entity_base / sqrt(mentions - 1)), and no hop at all
// through an entity mentioned by more than $max_degree memories (a hub), nor through the user themself
// (the entity 'user' of every "I ..." triple: a hub from the first memories on, whatever its degree).
// The depth literal is spliced from the allow-list (1..5), never from the request. The search is a
// hop-bounded Bellman-Ford for the best product: round k expands only the memories whose best score
// improved in round k - 1, and a partial path below $min_strength is dropped (strengths are <= 1, so it
// can only get weaker) before its far end is read: an edge or an entity too weak for the path's score so
// far is not followed at all (what keeps depth 3 cheap around entities with many mentions). Each round is
// bounded (related/search_round: the $limit best memories, each along its $per_memory strongest hops; with
// $per_memory at $limit the results are the unbounded search's), so a round builds at most $limit *
// $per_memory paths even for a user whose memories are all associated with each other. Never leaves the
// (tenant, user): every node is checked. Superseded memories (valid_to set) are neither reached nor crossed unless $include_history. No
// row when the start memory is not the user's.
MATCH (start:Memory {id: $memory_id})
WHERE start.tenant = $tenant AND start.user_id = $user_id
WITH 1 AS k, {id: start.id, score: 1.0, round: 0, path: []} AS x
// ----- rounds 1 to 5 (a round past {{depth}} expands nothing) -----
{{> related/search_round}}
{{> related/search_round}}
{{> related/search_round}}
{{> related/search_round}}
{{> related/search_round}}
// ----- the results, best first: the best $limit after the start (always first), then only those are read -----
WITH x ORDER BY x.score DESC, size(x.path) ASC, x.id ASC
LIMIT $limit + 1
OPTIONAL MATCH (m:Memory {id: x.id})
WHERE x.id <> $memory_id AND m.tenant = $tenant AND m.user_id = $user_id
WITH $memory_id AS start_id, m, x ORDER BY x.score DESC, size(x.path) ASC, x.id ASC
// Grouped by start_id: no row at all when there were no rows (the start is not the user's memory).
// Timestamps as ISO strings: the driver's DateTime hydration cost ~0.2 ms each, 60 per call.
RETURN start_id,
       collect(CASE WHEN m IS NOT NULL THEN {
                 memory: m {.*, embedding: null, created_at: toString(m.created_at),
                            valid_from: toString(m.valid_from), valid_to: toString(m.valid_to),
                            last_mentioned_at: toString(m.last_mentioned_at),
                            last_recalled_at: toString(m.last_recalled_at), decayed_at: toString(m.decayed_at),
                            last_feedback_at: toString(m.last_feedback_at)},
                 score: x.score, path: x.path} END) AS results
