// Bench only (bench/scale_load.py --vector-index after): drop the memory vector index before a bulk load;
// the schema migration re-creates it afterwards and Neo4j populates it from the stored vectors.
DROP INDEX {{vector_index}} IF EXISTS
