// (Included by recall/slot_answers and recall/rows_checked.) The memories of one user that state a fact of
// the user a question asks for (ingest/slots.py): those asserting an affirmed triple
// (user)-[predicate IN $slot_predicates]->(value), where the user's entity is any of $slot_subject_ids (the
// entity named "user" of each kind a triple's subject may have been given; none: no rows), with recall's
// filters (types, tiers, validity as recall/rows); newest first, at most $slot_limit, as m and the
// predicates it states (answers).
UNWIND $slot_subject_ids AS subject_id
MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(:Entity)
WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.predicate IN $slot_predicates AND t.polarity = 1
MATCH (m:Memory {id: t.memory_id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND ($types IS NULL OR m.type IN $types)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND CASE WHEN $as_of IS NULL THEN ($include_history OR m.valid_to IS NULL)
           ELSE m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) END
WITH m, collect(DISTINCT t.predicate) AS answers
ORDER BY m.created_at DESC, m.id
LIMIT $slot_limit
