// Bench only (bench/erasure.py): how many nodes and relationships the store holds (count store lookups).
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
RETURN nodes, relationships
