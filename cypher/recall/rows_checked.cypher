// recall/user_state and recall/rows in one statement (one round trip instead of two): the user's memory
// counts, sequence and epoch, and the compact candidate rows of some of the user's memories by id, read
// in the same transaction. Recall ranks the ids with the vector cache as it was at the user's last recall
// and keeps the rows only when the state shows the cache was current (graph/recall.py).
CALL () {
{{> recall/user_state}}
}
OPTIONAL CALL () {
{{> recall/rows}}
}
RETURN mine, total, seq, epoch,
       collect(CASE WHEN id IS NULL THEN null
                    ELSE {id: id, text: text, weight: weight, seen: seen, names: names} END) AS rows
