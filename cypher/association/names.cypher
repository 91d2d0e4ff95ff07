// What association forming looks for in stored memories' texts before it forms their associations (reads only;
// bmam/usecases/associations.py, ingest/names_said.py decides which names a text says):
// - names: the user's entities of the named kinds ($kinds: a person, a pet, a place, an organization), the user
//   themself aside, the newest $name_limit: a memory naming one of them MENTIONS it (association/form_many);
// - fresh: of the memories $ids, the entities of those kinds one of their own triples brought in (created with it:
//   the triple's time is the entity's), each with the ids of those memories and the user's live memories whose
//   text may say its name (memory_text_scoped scoped to the user by $token: the name as a phrase, or its
//   possessive, one token for the index: "Tom's"; a name the index drops, a stop word such as "Will", asks for no
//   word at all, and the user's first hits come back to be checked), at most $hit_limit, newest first: the older
//   memories that said the name before the graph knew it mention it too.
CALL () {
  MATCH (e:Entity)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.kind IN $kinds AND e.name <> 'user'
  WITH e ORDER BY e.created_at DESC, e.id LIMIT $name_limit
  RETURN collect({id: e.id, name: e.name}) AS names
}
CALL () {
  UNWIND CASE WHEN $hit_limit > 0 THEN $ids ELSE [] END AS id
  MATCH (m:Memory {id: id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.kind IN $kinds AND e.name <> 'user'
    AND e.name =~ '(?s).*[\\p{L}\\p{N}].*'
    AND EXISTS { MATCH (e)-[t:TRIPLE]-(:Entity) WHERE t.memory_id = m.id AND t.created_at = e.created_at }
  WITH e, collect(m.id) AS memory_ids
  CALL (e) {
    // the scope token is graph/scope_token.py's digest of (tenant, user), never text a caller sent; the name is
    // quoted as a phrase, its backslashes and quotes escaped
    WITH '"' + replace(replace(e.name, '\\', '\\\\'), '"', '\\"') AS phrase, '+scope_token:' + $token AS scoped
    CALL db.index.fulltext.queryNodes('memory_text_scoped',
                                      scoped + '^0 +text:(' + phrase + '" OR ' + phrase + '\'s" OR '
                                      + phrase + '’s")', {limit: $hit_limit})
    YIELD node AS o
    WHERE o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    WITH o ORDER BY o.created_at DESC, o.id
    RETURN collect({id: o.id, text: o.text}) AS hits
  }
  RETURN collect({entity_id: e.id, name: e.name, memory_ids: memory_ids, hits: hits}) AS fresh
}
RETURN names, fresh
