// Liveness: Neo4j answers.
RETURN 1 AS ok
