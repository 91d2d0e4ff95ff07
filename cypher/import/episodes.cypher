// Import: the speaker and text of the target user's episodes among the given ids (derived from session
// and turn, graph/episodes.py episode_id). A turn the user already has with the same speaker and text is
// the same turn (ingest tells a repeat so too); with another, the import is refused before any write.
MATCH (e:Episode)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.id IN $ids
RETURN e.id AS id, e.speaker AS speaker, e.text AS text
