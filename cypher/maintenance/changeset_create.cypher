// Open a maintenance changeset of one tenant (user_id: the one user it covers, or null for every user of
// the tenant); seq orders the tenant's changesets even when two share a timestamp. Entries are added per user in the same transaction as that user's changes.
OPTIONAL MATCH (prev:Changeset)
WHERE prev.tenant = $tenant
WITH coalesce(max(prev.seq), 0) + 1 AS seq
CREATE (c:Changeset {id: $id, seq: seq, tenant: $tenant, user_id: $user_id, kind: $kind, created_at: $now,
                     dry_run: false, undone: false, status: 'RUNNING', users_done: 0, decayed: 0,
                     merged: [], purged: [], damped: [], lifted: [], indexes_rebuilt: []})
RETURN c {.*} AS changeset
