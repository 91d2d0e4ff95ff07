// Undo, step 4: re-create the recorded triples of restored memories of one user between their entities
// (entities are never deleted by maintenance; found by element id at capture time, same tenant and user).
UNWIND $triples AS t
MATCH (s:Entity) WHERE elementId(s) = t.s AND s.tenant = $tenant AND s.user_id = $user_id
MATCH (o:Entity) WHERE elementId(o) = t.o AND o.tenant = $tenant AND o.user_id = $user_id
CREATE (s)-[x:TRIPLE]->(o)
SET x = t.props
RETURN count(x) AS restored
