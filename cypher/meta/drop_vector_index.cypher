// Drop a memory vector index built for another embedding dimension (name from the allow-list).
DROP INDEX {{vector_index}} IF EXISTS
