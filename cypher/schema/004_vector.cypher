// Cosine vector index over memory embeddings. The dimension follows the embedding model and is
// spliced from an allow-list of integers; the index name carries it, so switching to a model of
// another dimension builds a new index instead of silently mixing sizes.
CREATE VECTOR INDEX memory_embedding_{{dimensions}} IF NOT EXISTS FOR (m:Memory) ON m.embedding
OPTIONS {indexConfig: {`vector.dimensions`: {{dimensions}}, `vector.similarity_function`: 'cosine'}}
