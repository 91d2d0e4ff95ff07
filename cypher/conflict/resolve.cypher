// Settle an open conflict of one user, as the user or the system chose: conflict/settle_pair does it (the
// winner's bonus, the loser's penalty and end of validity, SUPERSEDES, the loser's associations taken off it (a
// correction's carried to the winner), the loser's other conflicts closed as moot; nothing but a moot close when
// either memory is no longer live). Run after weights/lock and weights/decay on both memories in the same
// transaction. Nothing happens unless the conflict is OPEN. Returns the settled conflict with both of its memories
// as they are now (what conflict/get reads).
MATCH (c:Conflict {id: $id})
WHERE c.tenant = $tenant AND c.user_id = $user_id AND c.status = 'OPEN'
MATCH (w:Memory {id: $winner_id}), (l:Memory {id: $loser_id})
WHERE w.tenant = $tenant AND w.user_id = $user_id AND l.tenant = $tenant AND l.user_id = $user_id
{{> conflict/settle_pair}}
