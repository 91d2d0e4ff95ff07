// Export: what the IRIs of some of one user's nodes of one kind are made of (label spliced from the
// allow-list): the far ends of a page's relationships and triples, and the nodes that properties
// point at by id (a memory's episode_id, a conflict's memories, a SUPERSEDES edge's conflict_id).
// The key of a memory or conflict is origin_id when an import gave it a new id.
UNWIND $ids AS id
MATCH (n:{{node_label}} {id: id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
RETURN n.id AS id, n['origin_id'] AS origin_id, n.kind AS kind, n.name AS name, n.session_id AS session_id,
       n.turn AS turn
