// A user's superseded history (memories with valid_to) by a seek: a composite index holds only the nodes that have
// every one of its properties, so this one holds history alone and a live memory's write never touches it. The users
// listing (user/list) counts a user's history from it and its live memories as the rest of its HAS_MEMORY edges.
CREATE INDEX memory_scope_valid_to IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id, m.valid_to)
