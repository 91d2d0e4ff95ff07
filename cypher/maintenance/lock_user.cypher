// Take the write lock on every unlocked memory of one user (in id order) for the rest of the maintenance
// transaction, so the before-images it records and the changes it makes see one consistent state.
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND NOT m.locked
WITH m ORDER BY m.id
SET m._lock = true
REMOVE m._lock
RETURN count(m) AS locked
