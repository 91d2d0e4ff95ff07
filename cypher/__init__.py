"""Every Cypher statement the service runs, one named file each; cypher/schema/ is the schema."""
