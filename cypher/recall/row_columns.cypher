// (Included after RETURN by recall/rows, recall/slot_answers and recall/rows_checked.) The compact candidate
// row of memory m (graph/recall.py _found): id, text, its weight as of $weight_at_ms (recall/weight_now), when
// it was last mentioned (epoch ms) and the names of the entities it mentions.
m.id AS id, m.text AS text,
{{> recall/weight_now}}
AS weight, coalesce(m.last_mentioned_at, m.created_at).epochMillis AS seen,
[(m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant | e.name] AS names
