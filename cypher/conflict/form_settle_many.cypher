// association/form_many for a segment of stored memories (its $items and settings), then conflict/settle_many for
// the segment's last memory (its $record, $resolve, $ids, ...), in one statement: the stored-memory hooks of an ingest
// batch form a segment's associations, then settle the conflicts of its last memory (bmam/usecases/hooks.py), and a
// settlement takes the loser's associations, those just formed included, off it (conflict/settle_pair). The
// associations formed (form_many's rows) come back as formed, beside settle_many's recorded and resolved.
CALL () {
  {{> association/form_many}}
}
WITH collect({memory_id: memory_id, by_form: by_form, by_terms: by_terms}) AS formed
CALL () {
  {{> conflict/settle_many}}
}
RETURN formed, recorded, resolved
