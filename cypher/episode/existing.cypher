// Which of the given episode ids one user already has, with what was said (an idempotent re-ingest
// finds them all; a different text under the same id is a conflict).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND e.user_id = $user_id
RETURN e.id AS id, e.speaker AS speaker, e.text AS text, e.turn AS turn, e.session_id AS session_id
