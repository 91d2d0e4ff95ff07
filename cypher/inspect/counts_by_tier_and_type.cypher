// A user's memories counted by tier and type
// Per tier (core, mid, temp) and type: live ones, superseded ones, locked ones, all.
// :param tenant => 'default'
// :param user_id => 'alice'
MATCH (m:Memory)
WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m.tier AS tier, m.type AS type,
       sum(CASE WHEN m.valid_to IS NULL THEN 1 ELSE 0 END) AS live,
       sum(CASE WHEN m.valid_to IS NULL THEN 0 ELSE 1 END) AS superseded,
       sum(CASE WHEN m.locked THEN 1 ELSE 0 END) AS locked,
       count(*) AS total
ORDER BY CASE tier WHEN 'core' THEN 0 WHEN 'mid' THEN 1 ELSE 2 END, type
