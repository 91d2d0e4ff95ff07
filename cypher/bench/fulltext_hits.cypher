// Bench only (bench/fulltext_scope.py): the ids of one user's memories among the first $limit hits of the
// full-text query $lucene on memory_text_scoped, best first. Scoped to the user (graph/scope_token.py) as
// recall asks, or over the text alone (text:(...)) as the index without tokens answered. Never run by
// the service.
CALL db.index.fulltext.queryNodes('memory_text_scoped', $lucene, {limit: $limit})
YIELD node AS m, score
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN collect(m.id) AS ids
