"""The test suite (pytest); storage tests run against the real Neo4j server."""
