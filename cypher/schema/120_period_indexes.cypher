// A question about a past period (recall/in_period: "What did I do yesterday?") reads a user's turns and
// memories by time: these make both a range seek within the user, not a scan of all their episodes.
CREATE INDEX episode_scope_at IF NOT EXISTS FOR (e:Episode) ON (e.tenant, e.user_id, e.at);
CREATE INDEX memory_scope_created IF NOT EXISTS FOR (m:Memory) ON (m.tenant, m.user_id, m.created_at)
