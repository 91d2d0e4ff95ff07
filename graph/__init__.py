"""The memory model (graph/model.py) and all access to Neo4j."""
