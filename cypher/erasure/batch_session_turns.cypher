// forgetSession, first: erase up to $batch turns of one session of one (tenant, user) (Episode nodes carrying the
// session's id, found through the user's episode index: an episode goes whatever still links it), with every
// relationship touching them (HAS_EPISODE, NEXT, the memories' DERIVED_FROM), and report the labels and relationship
// types removed.
MATCH (n:Episode)
WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.session_id = $session_id
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
