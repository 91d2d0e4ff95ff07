// The memories of one user stating the user's facts a question asks for (recall/slot_match), as compact
// candidate rows with their cosine to $embedding (Neo4j's (1 + cos) / 2) and the predicates they state.
// Run on its own when recall/rows_checked did not read them (no vector cache, or a user not yet cached).
{{> recall/slot_match}}
RETURN
{{> recall/row_columns}},
       vector.similarity.cosine(m.embedding, $embedding) AS sim, answers
