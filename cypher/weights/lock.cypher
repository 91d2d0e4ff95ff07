// Take the write lock on some memories of one user (in id order, so two transactions never wait on each
// other in a cycle) before reading them: every read and write that follows in the same transaction sees
// the latest committed values, so concurrent updates are never lost. Nothing is changed.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant AND m.user_id = $user_id
WITH m ORDER BY m.id
SET m._lock = true
REMOVE m._lock
RETURN m.id AS id, m.locked AS locked
