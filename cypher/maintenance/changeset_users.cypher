// Included after a changeset c is matched: `users`, the users whose memories it changed (of $user_id alone when
// given), read from its change entries (one per changed memory; forgetUser erases a user's entries, so an erased
// user is named nowhere). Not kept on the changeset: erasure would have to find and edit every changeset.
CALL (c) {
  OPTIONAL MATCH (e:ChangeEntry {changeset_id: c.id})
  WHERE e.tenant = $tenant AND ($user_id IS NULL OR e.user_id = $user_id)
  RETURN collect(DISTINCT e.user_id) AS users
}
