// Anti-repetition: append a turn to a session history that already exists, never creating one. A turn that
// surfaced nothing goes here: at the start of a history it changes no damping (the window keeps the newest
// turns and an empty turn damps nothing), so a recall for a user with nothing stored writes no node.
MATCH (s:SessionRecall {id: $id})
WHERE s.tenant = $tenant AND s.user_id = $user_id
SET s.turns = (coalesce(s.turns, []) + [$turn])[-$keep..], s.updated_at = $now
RETURN size(s.turns) AS kept
