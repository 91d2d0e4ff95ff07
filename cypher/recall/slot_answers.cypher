// The memories of one user stating the user's facts a question asks for (recall/slot_match), as compact
// candidate rows with their cosine to $embedding (Neo4j's (1 + cos) / 2) and the predicates they state.
// Run on its own when recall/rows_checked did not read them (no vector cache, or a user not yet cached).
// A vector of another size (written under an earlier embedding model) has no cosine: null, as in
// recall/candidates (vector.similarity.cosine refuses vectors of different sizes).
{{> recall/slot_match}}
RETURN
{{> recall/row_columns}},
       CASE WHEN size(m.embedding) = size($embedding)
            THEN vector.similarity.cosine(m.embedding, $embedding) END AS sim, answers
