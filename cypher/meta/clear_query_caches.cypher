// Empties Neo4j's query plan cache, as a restart does (bench/plan_warm_up.py measures the first requests after it).
CALL db.clearQueryCaches() YIELD value
RETURN value
