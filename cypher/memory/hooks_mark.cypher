// These stored memories of one user wait for their after-store hooks again (addTriple gave one a triple:
// conflict detection and association forming run once more), since $at (ISO text); a mark already there is
// kept (the memory has waited since then). memory/hooks_done clears it; memory/hooks_pending finds it.
WITH datetime($at) AS at
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m.hooks_pending_at = coalesce(m.hooks_pending_at, at)
