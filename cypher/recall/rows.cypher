// The compact candidate rows of some of one user's memories by id (the ones the in-process vector cache
// ranked best), with recall's filters: $types, $tiers, and validity ($as_of, or live memories only unless
// $include_history). A memory deleted since the cache read it is simply not found.
UNWIND $ids AS id
{{> recall/row_by_id}}
