// A condition, included where memory m is weighed for removal (tier/memories: the sweep's staleness;
// maintenance/plan_memories: FULL's purge): m states a live triple with one of $durable_predicates, the user's
// lasting knowledge (their home, work, family, likes, ...), which neither removes. Through the triple_memory index.
EXISTS { MATCH ()-[t:TRIPLE {memory_id: m.id}]->()
         WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.valid_to IS NULL
           AND t.predicate IN $durable_predicates }
