// Import: which of the given ids and portable keys one user already has among its nodes of one kind
// (label spliced from the allow-list): as id, or as origin_id after an earlier import. An import
// reuses those nodes as they are and creates only what is missing.
MATCH (n:{{node_label}})
WHERE n.tenant = $tenant AND n.user_id = $user_id AND (n.id IN $keys OR n['origin_id'] IN $keys)
RETURN n.id AS id, n['origin_id'] AS origin_id
