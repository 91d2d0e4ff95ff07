// Anti-repetition shared by every worker (ingest/shared_session.py): what the last recalls of one session
// of one user surfaced, oldest first, as JSON texts {"ids": [...], "terms": [...]}.
MATCH (s:SessionRecall {id: $id})
WHERE s.tenant = $tenant AND s.user_id = $user_id
RETURN coalesce(s.turns, []) AS turns
