// recall/user_state and recall/rows in one statement (one round trip instead of two): the user's memory
// counts, sequence and epoch, and the compact candidate rows of some of the user's memories by id, read
// in the same transaction. Recall ranks the ids with the vector cache as it was at the user's last recall
// and keeps the rows only when the state shows the cache was current (graph/recall.py).
// For a large user (one the full-text index answers: $lucene not null) the full-text candidates come in the
// same statement too (recall/index_text), so a large user's recall reads its candidates in one round trip
// (recall passes an empty $embedding: their cosines come from the cache, not from each hit's embedding).
// So do the memories stating the user's facts a slot question asks for (recall/slot_match; none when
// $slot_subject_ids is empty), their cosines from the cache.
// And so do the neighbours (recall/neighbours) of the hits likely to seed the graph expansion: the first
// $prefetch_dense of $prefetch_ranked (the cache's ranking, best first) that recall/rows found (a user's
// superseded memories rank beside the live ones: the first ten ids of the ranking held as few as six seeds),
// $prefetch_terms (the cache's best term hits), the first $prefetch_text full-text hits and, with
// $prefetch_slots, the slot rows (answers score high); recall expands from the best direct hits once it has
// scored them, and reads only the seeds missing here (graph/recall.py learns from `seeds` which were read).
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
CALL () {
  CALL () {
{{> recall/slot_match}}
    RETURN
{{> recall/row_columns}}, answers
  }
  RETURN collect({id: id, text: text, weight: weight, seen: seen, names: names, answers: answers}) AS slot_rows
}
CALL () {
  OPTIONAL CALL () {
{{> recall/rows}}
  }
  RETURN collect(CASE WHEN id IS NULL THEN null
                      ELSE {id: id, text: text, weight: weight, seen: seen, names: names} END) AS rows
}
// Each ranking's reserve ($reserves: {batch, need, ids}, one per ranking in $ids) is read only when fewer than
// `need` of its batch passed the filters: the next ids of that ranking, so a ranking short of its k (a user's
// superseded memories rank beside the live ones) needs no second round trip (recall/rows) in most recalls.
WITH *, [x IN rows | x.id] AS found_ids
WITH *, [reserve IN $reserves | size([x IN reserve.batch WHERE x IN found_ids]) < reserve.need] AS reserved
CALL (reserved) {
  OPTIONAL CALL (reserved) {
    UNWIND range(0, size(reserved) - 1) AS i
    WITH i WHERE reserved[i]
    UNWIND $reserves[i].ids AS id
    WITH DISTINCT id
{{> recall/row_by_id}}
  }
  RETURN collect(CASE WHEN id IS NULL THEN null
                      ELSE {id: id, text: text, weight: weight, seen: seen, names: names} END) AS reserve_rows
}
// $prefetch_ranked is among $ids: the ones passing the filters are those recall/rows found
WITH *, [x IN $prefetch_ranked WHERE x IN found_ids][..$prefetch_dense] AS ranked_seeds
WITH *, [x IN ranked_seeds + $prefetch_terms + [h IN text_hits[..$prefetch_text] | h.id]
            + [r IN slot_rows WHERE $prefetch_slots | r.id] WHERE x IS NOT NULL] AS seed_list
CALL (seed_list) {
  CALL (seed_list) {
    UNWIND seed_list AS seed_id
    WITH DISTINCT seed_id
{{> recall/neighbours}}
  }
  RETURN collect({seed_id: seed_id, id: id, text: text, weight: weight, seen: seen, strength: strength, via: via,
                  entity: entity, names: names, sim: sim}) AS neighbours
}
RETURN mine, total, seq, epoch, text_hits, neighbours, slot_rows, seed_list AS seeds, rows, reserved,
       reserve_rows
