// Associations formed when memories are stored, for several stored memories of one user, memory after
// memory in the order of $items (each {memory_id, episode_id, episode_mates, now, terms, han_terms,
// latin_terms, lucene, names, named_by}; the per-memory subqueries run row after row, so each memory's MERGE sees
// the edges of those before it). An existing edge keeps the stronger of its strength and the new one; one edge per
// pair, both memories of the one user; an edge the user set (association/associate, formed_by 'user') is left
// as the user set it. Returns per memory (in $items order) the edges each part touched.
// Superseded memories (valid_to set) are history: a conflict's settlement moved their associations to the
// winner, so none forms again, from one (its hooks run again by addTriple) or to one (an episode mate: the
// remains of a loser derive from the loser's own turn).
// 0. A memory naming an entity of the user's without a triple ("Tom is getting married in June." once the graph knows
//    Tom: item.names, the entity ids ingest/names_said.py found in its text, association/names) MENTIONS it, and the
//    older memories that named an entity its own triples brought in (item.named_by: [{entity_id, memory_ids}], the
//    memories whose text names it newest first: the first $mention_backfill of them still live) MENTION it: so the
//    shared-entity part below links them as it links memories whose triples name the same entity.
// 1. formed_by 'stored': with the other memories derived from the same episode (strength $same_episode), and
//    for a follow-up opening with a pronoun (item.follows_up) those of the user's turn before it in the session,
//    for a liking said right after the user asked for something (item.refines) those of the asking turn,
//    for a step of a sequence (item.continues) those of the user's turns back to the sequence's head,
//    and with memories sharing an entity with it (the entity hop strength of related/search:
//    min(1, $entity_base / sqrt(mentions - 1)), no hub above $max_degree and never the user themself, the
//    entity 'user'), the most recent $per_entity per entity (ties by id: the same edges on every store).
// 2. formed_by 'terms' (when item.terms): with the other live memories holding one of its terms which at
//    most $max_df other memories hold (a name, a place, a company: an entity the extractor may have
//    missed). Strength min(1, $term_base / sqrt(df)) for the rarest shared term, the entity hop formula
//    with df + 1 mentions. Han terms match as substrings (bigrams), Latin terms as whole words. A small
//    user's memories are scanned; a large one's come from the memory_text_scoped index (item.lucene, scoped
//    to the user by graph/scope_token.py: its own best $limit hits). Nothing below $min_memories memories
//    (there, every word is rare), except the terms where a memory says a change of the user's (item.change_terms:
//    比亚迪汉 of "最后提了比亚迪汉 老婆选的颜色" after "纠结 特斯拉model 3和比亚迪汉"): the thing it changes is named by a
//    rare term, and recall reaches the latest word from the older one through this edge (ingest/scoring.py
//    latest_word_first), at $term_base whatever its df.
// The term part's candidates (the user's live memories, lower-cased) are read once for the statement, not per
// memory: the per-memory subqueries create ASSOCIATED edges only, so which memories are live, their texts and
// how many the user holds are the same for every row (read per memory they cost 204k db hits per 512
// user turns instead of 121k).
OPTIONAL MATCH (u:User {tenant: $tenant, user_id: $user_id})
WITH u, CASE WHEN u IS NULL THEN 0 ELSE COUNT { (u)-[:HAS_MEMORY]->() } END AS mine
CALL (u, mine) {
  WITH u WHERE u IS NOT NULL AND mine <= $scan_max
    AND any(item IN $items WHERE item.terms AND (mine >= $min_memories OR size(item.change_terms) > 0))
  MATCH (u)-[:HAS_MEMORY]->(o:Memory)
  WHERE o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
  RETURN collect({o: o, lower: toLower(o.text)}) AS pool  // [] when the user is not scanned
}
// item.now comes as ISO text (graph/records.py time_param: the driver packed each datetime in ~33 us).
UNWIND $items AS raw
WITH pool, mine, raw {.*, now: datetime(raw.now)} AS item
CALL (item) {
  MATCH (m:Memory {id: item.memory_id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  // 0. the entities it names without a triple (item.names), and those its triples brought in, by the older memories
  //    that named them (item.named_by, each entity's candidates newest first: the first $mention_backfill still
  //    live): mentioned before the shared entities are read below
  CALL (m, item) {
    UNWIND item.names AS entity_id
    MATCH (e:Entity {id: entity_id})
    WHERE e.tenant = $tenant AND e.user_id = $user_id
    MERGE (m)-[:MENTIONS]->(e)
  }
  CALL (item) {
    UNWIND item.named_by AS named
    MATCH (e:Entity {id: named.entity_id})
    WHERE e.tenant = $tenant AND e.user_id = $user_id
    CALL (named) {
      UNWIND range(0, size(named.memory_ids) - 1) AS i
      MATCH (o:Memory {id: named.memory_ids[i]})
      WHERE o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
      RETURN o ORDER BY i LIMIT $mention_backfill
    }
    MERGE (o)-[:MENTIONS]->(e)
  }
  CALL (m, item) {
    MATCH (m)-[:DERIVED_FROM]->(ep:Episode)<-[:DERIVED_FROM]-(o:Memory)
    WHERE ep.tenant = $tenant AND ep.user_id = $user_id AND o <> m
      AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o, $same_episode AS strength
    UNION ALL
    MATCH (ep:Episode {id: item.episode_id})<-[:DERIVED_FROM]-(o:Memory)
    WHERE ep.tenant = $tenant AND ep.user_id = $user_id AND o <> m
      AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o, $same_episode AS strength
    UNION ALL
    UNWIND coalesce(item.episode_mates, []) AS mate_id
    MATCH (o:Memory {id: mate_id})
    WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o, $same_episode AS strength
    UNION ALL
    // the memories of the user's turn just before it in the session (an assistant's reply may stand between), for
    // - a follow-up ("she's a nurse there" after "my sister Jess lives in Denver"): those that name a person or a pet,
    //   or speak of someone unnamed ($person_word_pattern: "physio says IT band syndrome" before "she gave me
    //   clamshells"): the one the pronoun points to ("They say it will rain" linked to a beagle, "She's a nurse" to
    //   an allergy);
    // - a refinement ("I like true crime and history. Nothing political." after "Recommend some podcasts for a
    //   14-hour day?"): all of them when that turn asked for something ($asking_pattern): the liking is the answer's
    //   terms, and recall reaches it from the request ("Recommend me a few podcasts for next week's drives." shares
    //   no word with it)
    MATCH (ep:Episode {id: item.episode_id})<-[:NEXT]-(p1:Episode)
    WHERE (item.follows_up OR item.refines) AND ep.tenant = $tenant AND ep.user_id = $user_id
    OPTIONAL MATCH (p1)<-[:NEXT]-(p2:Episode)
    WITH m, item, CASE WHEN p1.speaker = 'user' THEN p1 WHEN p2.speaker = 'user' THEN p2 END AS prev
    MATCH (prev)<-[:DERIVED_FROM]-(o:Memory)
    WHERE prev.tenant = $tenant AND prev.user_id = $user_id
      AND o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
      AND ((item.refines AND prev.text =~ $asking_pattern)
           OR (item.follows_up
               AND (EXISTS { MATCH (o)-[:MENTIONS]->(e:Entity) WHERE e.kind IN ['person', 'animal'] AND e.name <> 'user' }
                    OR o.text =~ $person_word_pattern)))
    RETURN o, $same_episode AS strength
    UNION ALL
    // a step of something told over several turns (item.continues: "Let me tell you how I deploy the blog." /
    // "First, I run make build." / "Then I rsync ..." / "Finally I purge the CDN."): the memories of the user's turns
    // back to the run's head, every user turn between a step too ($sequence_pattern), so each step is one hop from
    // the heading and from the other steps (recall expands one hop: a chain reached only the first step)
    MATCH path = (ep:Episode {id: item.episode_id})<-[:NEXT*1..12]-(p:Episode)
    WHERE item.continues AND ep.tenant = $tenant AND ep.user_id = $user_id AND p.speaker = 'user'
      AND all(x IN nodes(path)[1..-1] WHERE x.speaker <> 'user' OR x.text =~ $sequence_pattern)
    MATCH (p)<-[:DERIVED_FROM]-(o:Memory)
    WHERE p.tenant = $tenant AND p.user_id = $user_id
      AND o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o, $same_episode AS strength
    UNION ALL
    MATCH (m)-[:MENTIONS]->(e:Entity)
    WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.name <> 'user'
    WITH m, e, COUNT { (e)<-[:MENTIONS]-() } AS degree
    WHERE degree >= 2 AND degree <= $max_degree
    CALL (m, e) {
      MATCH (e)<-[:MENTIONS]-(o:Memory)
      WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
      RETURN o ORDER BY o.created_at DESC, o.id LIMIT $per_entity
    }
    WITH o, $entity_base / sqrt(degree - 1) AS raw
    RETURN o, CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength
  }
  WITH item, m, o, max(strength) AS strength
  WHERE strength > 0.0
  WITH item, CASE WHEN m.id < o.id THEN m ELSE o END AS a, CASE WHEN m.id < o.id THEN o ELSE m END AS b, strength
  MERGE (a)-[r:ASSOCIATED]-(b)
    ON CREATE SET r.created_at = item.now, r.strength = 0.0, r.tenant = $tenant, r.user_id = $user_id,
                  r.formed_by = 'stored'
  SET r._lock = true
  REMOVE r._lock
  WITH item, a, b, r, strength WHERE coalesce(r.formed_by, '') <> 'user'
  SET r.strength = CASE WHEN coalesce(r.strength, 0.0) < strength THEN strength ELSE r.strength END,
      r.updated_at = item.now
  RETURN collect({memory_a: a.id, memory_b: b.id, strength: r.strength}) AS by_form
}
CALL (item, pool, mine) {
  WITH item WHERE item.terms AND (mine >= $min_memories OR size(item.change_terms) > 0)
  WITH item, [t IN item.han_terms WHERE mine >= $min_memories OR t IN item.change_terms] AS han,
       [t IN item.latin_terms WHERE mine >= $min_memories OR t IN item.change_terms] AS latin
  MATCH (m:Memory {id: item.memory_id})
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.valid_to IS NULL
  CALL (m, pool, mine, item) {
    WITH m, pool WHERE mine <= $scan_max
    UNWIND pool AS p
    WITH m, p WHERE p.o <> m
    RETURN p.o AS o, p.lower AS lower
    UNION ALL
    WITH m, item WHERE mine > $scan_max AND item.lucene IS NOT NULL
    CALL db.index.fulltext.queryNodes('memory_text_scoped', item.lucene, {limit: $limit}) YIELD node AS o
    WHERE o <> m AND o.tenant = $tenant AND o.user_id = $user_id AND o.valid_to IS NULL
    RETURN o, toLower(o.text) AS lower
  }
  WITH item, han, latin, m, o, [t IN han WHERE lower CONTAINS t]
             + [t IN latin WHERE lower CONTAINS t AND lower =~ ('(?s).*\\b' + t + '\\b.*')] AS shared
  WHERE size(shared) > 0
  WITH item, han, latin, m, collect({o: o, shared: shared}) AS rows
  WITH item, m, rows, [t IN han + latin | {t: t, df: size([r IN rows WHERE t IN r.shared])}] AS dfs
  WITH item, m, rows, [x IN dfs WHERE x.df >= 1 AND x.df <= $max_df] AS rare
  WHERE size(rare) > 0
  UNWIND rows AS r
  // a term where the memory says a change counts as the rarest: each older word on the thing changed is one hop
  // from the latest, at $term_base (divided by sqrt(2), two older mentions fell below recall's expansion floor)
  WITH item, m, r.o AS o,
       [x IN rare WHERE x.t IN r.shared | CASE WHEN x.t IN item.change_terms THEN 1 ELSE x.df END] AS shared_dfs
  WHERE size(shared_dfs) > 0
  WITH item, m, o, reduce(low = $max_df, d IN shared_dfs | CASE WHEN d < low THEN d ELSE low END) AS df
  WITH item, m, o, $term_base / sqrt(df) AS raw
  WITH item, CASE WHEN m.id < o.id THEN m ELSE o END AS a, CASE WHEN m.id < o.id THEN o ELSE m END AS b,
       CASE WHEN raw > 1.0 THEN 1.0 ELSE raw END AS strength
  MERGE (a)-[r:ASSOCIATED]-(b)
    ON CREATE SET r.created_at = item.now, r.strength = 0.0, r.tenant = $tenant, r.user_id = $user_id,
                  r.formed_by = 'terms'
  SET r._lock = true
  REMOVE r._lock
  WITH item, a, b, r, strength WHERE coalesce(r.formed_by, '') <> 'user'
  SET r.strength = CASE WHEN coalesce(r.strength, 0.0) < strength THEN strength ELSE r.strength END,
      r.updated_at = item.now
  RETURN collect({memory_a: a.id, memory_b: b.id, strength: r.strength}) AS by_terms
}
RETURN item.memory_id AS memory_id, by_form, by_terms
