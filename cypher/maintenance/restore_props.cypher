// Undo a reweight: set exactly the recorded properties of memories of one user (removing any added since),
// leaving their labels, relationships and embedding as they are.
UNWIND $nodes AS n
MATCH (m:Memory {id: n.id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m += n.props
WITH m, n, [k IN keys(m) WHERE NOT k IN keys(n.props) AND k <> 'embedding'] AS extra
FOREACH (k IN extra | SET m[k] = null)
RETURN count(m) AS restored
