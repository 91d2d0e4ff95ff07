// forgetTenant, sweep: a page of the user ids any node or relationship of one tenant is stamped with, those after
// $after in id order, whatever the label or type (a user with data but no User node; one written while the
// tenant's users were being erased). Scans the whole store: run only when the proof after the fast path finds
// something left.
CALL () {
  MATCH (n) WHERE n.tenant = $tenant AND n.user_id > $after
  RETURN n.user_id AS user_id
  UNION
  MATCH ()-[r]->() WHERE r.tenant = $tenant AND r.user_id > $after
  RETURN r.user_id AS user_id
}
RETURN user_id
ORDER BY user_id
LIMIT $limit
