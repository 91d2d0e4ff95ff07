// The apply stamp of one user's maintenance transaction: the tenant counter's next number, taken under
// maintenance/tenant_lock near the end of that transaction. A later run over the same memories waits for
// this transaction's memory locks, so among runs over one memory the stamps follow the order the changes
// were made (changeset seqs follow only the order the runs started).
MATCH (k:Changeset {id: $counter_id})
WHERE k:ChangesetCounter AND k.tenant = $tenant
SET k.last_applied = coalesce(k.last_applied, 0) + 1
RETURN k.last_applied AS applied
