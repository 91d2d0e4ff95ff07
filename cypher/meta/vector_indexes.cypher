// The vector indexes on memory embeddings and their dimensions (a model switch changes the dimension).
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options
WHERE 'Memory' IN labelsOrTypes AND 'embedding' IN properties
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions
