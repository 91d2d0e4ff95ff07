// recall/user_state and recall/rows in one statement (one round trip instead of two): the user's memory
// counts, sequence and epoch, and the compact candidate rows of some of the user's memories by id, read
// in the same transaction. Recall ranks the ids with the vector cache as it was at the user's last recall
// and keeps the rows only when the state shows the cache was current (graph/recall.py).
// For a large user (one the full-text index answers: $lucene not null) the full-text candidates come in the
// same statement too (recall/index_text), so a large user's recall reads its candidates in one round trip.
CALL () {
{{> recall/user_state}}
}
CALL () {
  CALL () {
    WITH $lucene AS lucene WHERE lucene IS NOT NULL
    {{> recall/index_text}}
  }
  RETURN text AS text_hits
}
OPTIONAL CALL () {
{{> recall/rows}}
}
RETURN mine, total, seq, epoch, text_hits,
       collect(CASE WHEN id IS NULL THEN null
                    ELSE {id: id, text: text, weight: weight, seen: seen, names: names} END) AS rows
