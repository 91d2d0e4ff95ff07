// Recall's graph expansion, one hop from the seed hits: memories ASSOCIATED to a seed with strength at
// least $min_strength, and memories sharing an entity with a seed. An entity hop's strength comes from
// the entity's degree: $entity_base / sqrt(mentions - 1), none for an entity mentioned by more than
// $max_degree memories (a hub says nothing), and none through the user themself (the entity 'user', a
// hub whatever its degree). Best link per (seed, memory),
// at most $per_seed per seed, each with its cosine to the query (unless $with_sim is false: the caller
// has the vectors in memory). Same filters as recall/candidates.
UNWIND $seeds AS seed_id
{{> recall/neighbours}}
