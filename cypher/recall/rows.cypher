// The compact candidate rows of some of one user's memories by id (the ones the in-process vector cache
// ranked best), with recall's filters: $types, $tiers, and validity ($as_of, or live memories only unless
// $include_history). A memory deleted since the cache read it is simply not found.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND ($types IS NULL OR m.type IN $types)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
           ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
RETURN
{{> recall/row_columns}}
