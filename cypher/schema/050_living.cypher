// Living memory (issue 5): conflicts and maintenance changesets are found by id, conflicts by their user
// and status (the review queue), change entries by their changeset (undo).
CREATE CONSTRAINT conflict_id IF NOT EXISTS FOR (c:Conflict) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT changeset_id IF NOT EXISTS FOR (c:Changeset) REQUIRE c.id IS UNIQUE;
CREATE INDEX conflict_scope IF NOT EXISTS FOR (c:Conflict) ON (c.tenant, c.user_id, c.status);
CREATE INDEX changeset_tenant IF NOT EXISTS FOR (c:Changeset) ON (c.tenant);
CREATE INDEX change_entry_changeset IF NOT EXISTS FOR (e:ChangeEntry) ON (e.changeset_id);
CREATE INDEX change_entry_memory IF NOT EXISTS FOR (e:ChangeEntry) ON (e.tenant, e.user_id, e.memory_id)
