// Undo: re-create triples of memories of one user that a run removed (from their before-images) between
// their entities (never deleted by maintenance; found by element id at capture time, same tenant and user).
UNWIND $triples AS t
MATCH (s:Entity) WHERE elementId(s) = t.s AND s.tenant = $tenant AND s.user_id = $user_id
MATCH (o:Entity) WHERE elementId(o) = t.o AND o.tenant = $tenant AND o.user_id = $user_id
CREATE (s)-[x:TRIPLE]->(o)
SET x = t.props
RETURN count(x) AS restored
