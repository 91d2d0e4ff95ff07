// Open a maintenance changeset of one tenant (user_id: the one user it covers, or null for every user of
// the tenant). Runs after maintenance/tenant_lock in the same transaction, so seq (unique, increasing per
// tenant) is read and taken under that lock; it continues from changesets written before the counter.
// Entries are added per user in the same transaction as that user's changes.
MATCH (k:Changeset {id: $counter_id})
WHERE k:ChangesetCounter AND k.tenant = $tenant
OPTIONAL MATCH (prev:Changeset)
WHERE prev.tenant = $tenant AND NOT prev:ChangesetCounter
WITH k, coalesce(max(prev.seq), 0) AS recorded
WITH k, CASE WHEN coalesce(k.last_seq, 0) > recorded THEN k.last_seq ELSE recorded END + 1 AS seq
SET k.last_seq = seq
CREATE (c:Changeset {id: $id, seq: seq, tenant: $tenant, user_id: $user_id, kind: $kind, created_at: $now,
                     dry_run: false, undone: false, status: 'RUNNING', users_done: 0, decayed: 0,
                     merged: [], purged: [], damped: [], lifted: [], indexes_rebuilt: []})
RETURN c {.*} AS changeset
