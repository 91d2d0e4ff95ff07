// (Included by recall/slot_answers and recall/rows_checked.) The memories of one user that state a fact of
// the user a question asks for (ingest/slots.py): those asserting an affirmed triple
// (user)-[predicate IN $slot_predicates]->(value), or a denied one of P for a slot "not P" ("What don't I eat?"),
// where the user's entity is any of $slot_subject_ids (the entity named "user" of each kind a triple's subject
// may have been given; none: no rows), with recall's
// filters (types, tiers, validity as recall/rows); as m and the predicates it states (answers).
// A question about the user's people and nothing else ("my family", "my daughter", 我女儿, "my coworker": the
// predicates asked, $slot_people, ingest/slots.py people_asked) also reads the memories mentioning one of them: the
// value X of a live, affirmed triple (user)-[child ...]->(X) asked for, whether the memory MENTIONS X
// (a triple of its own names X) or names X in its text (the extractor finds no triple in "Lily started piano
// lessons on Saturdays": the memory_text_scoped index, scoped to the user, asked for X's name as a word,
// then the text checked to hold the name as written, so a daughter named Hope is not "I hope ..." and a son
// named Will is not William). Such a
// memory answers with the predicates (child) it was reached through, as if it stated them. The memories
// stating the facts come first, then the mentions, then the memories that ended a fact asked for, each
// predicate's newest first in each; at most $slot_limit.
CALL () {
  UNWIND $slot_subject_ids AS subject_id
  MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(:Entity)
  WHERE t.tenant = $tenant AND t.user_id = $user_id
    AND (t.polarity = 1 AND t.predicate IN $slot_predicates OR t.polarity = -1 AND 'not ' + t.predicate IN $slot_predicates)
  MATCH (m:Memory {id: t.memory_id})
  RETURN m, CASE WHEN t.polarity = 1 THEN t.predicate ELSE 'not ' + t.predicate END AS answer, 0 AS via
  UNION ALL
  // A fact that no longer holds answers through the live memory that ended it ("Do I have a dog?": "Biscuit passed
  // away last week" superseded "I have a golden retriever named Biscuit"), as "pet (ended)"; not a routine or a
  // provider (keyed: the ender of one bedtime is no answer about the gym), and not when the past is asked for.
  // Nor a fact a live memory still states, or the loser's remains carried (live or not): the winner ended another
  // clause of the memory it superseded, whose remains keep this one ("We cancelled the Japan trip" ended the trip,
  // not "My sister Lin", nor 跳槽去了腾讯 the name said beside the old job); the remains are what the winner did not
  // contest (ingest/remains.py), and a later winner that ended the fact in them answers for it (the new job is no
  // answer to "Where do I live?" once the move superseded the remains "I live in Hangzhou, I'm a UX designer").
  UNWIND CASE WHEN $as_of IS NULL AND NOT $include_history THEN $slot_subject_ids ELSE [] END AS subject_id
  MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(value:Entity)
  WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.polarity = 1 AND t.predicate IN $slot_predicates
    AND NOT t.predicate IN ['has_routine', 'has_provider']
  MATCH (ended:Memory {id: t.memory_id})<-[:SUPERSEDES]-(m:Memory)
  WHERE ended.valid_to IS NOT NULL
    AND NOT EXISTS {
      MATCH (:Entity {id: subject_id})-[held:TRIPLE {predicate: t.predicate}]->(value)
      WHERE held.tenant = $tenant AND held.user_id = $user_id AND held.polarity = 1
        AND EXISTS { MATCH (kept:Memory {id: held.memory_id})
                     WHERE kept.valid_to IS NULL OR kept.remains_of = ended.id }
    }
  RETURN m, t.predicate + ' (ended)' AS answer, 2 AS via
  UNION ALL
  // One relative asked about and called by a kin word ("my mom", 我妈: $slot_kin, ingest/slots.py kin_words): the
  // memories speaking of the user's own by that word ($slot_kin_pattern: not "her mom", 朋友的妈妈) answer with the
  // kin predicate, when the relative is unnamed (a named one's memories are found by the name, below: by the kin
  // word too, "wife Sarah is a mining engineer" of long ago came first for "how long will my wife be home")
  WITH $slot_kin_lucene AS lucene WHERE lucene IS NOT NULL
    AND NOT EXISTS {
      MATCH (u:Entity)-[t:TRIPLE]->()
      WHERE u.id IN $slot_subject_ids AND t.predicate = $slot_kin AND t.polarity = 1
        AND t.tenant = $tenant AND t.user_id = $user_id
    }
  CALL db.index.fulltext.queryNodes('memory_text_scoped', lucene, {limit: 10 * $slot_limit}) YIELD node AS m
  WITH m WHERE m.text =~ $slot_kin_pattern
  RETURN m, $slot_kin AS answer, 1 AS via
  UNION ALL
  UNWIND CASE WHEN size($slot_people) > 0 THEN $slot_subject_ids ELSE [] END AS subject_id
  MATCH (:Entity {id: subject_id})-[t:TRIPLE]->(x)
  WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.predicate IN $slot_people AND t.polarity = 1
    AND NOT x.id IN $slot_subject_ids
  // x's scope checked after the expansion from the user: tested with it, the planner seeks all the user's
  // entities by (tenant, user_id) and expands into each (42k db hits on a 100k-memory user, ~20 ms)
  WITH DISTINCT t, x
  WHERE x.tenant = $tenant AND x.user_id = $user_id
  MATCH (said:Memory {id: t.memory_id})
  WHERE said.tenant = $tenant AND said.user_id = $user_id
    AND CASE WHEN $as_of IS NULL THEN said.valid_to IS NULL
             ELSE said.valid_from <= $as_of AND (said.valid_to IS NULL OR said.valid_to > $as_of) END
  WITH x, collect(DISTINCT t.predicate) AS kin, head(collect(said.scope_token)) AS token
  CALL (x, token) {
    MATCH (x)<-[:MENTIONS]-(m:Memory)
    RETURN m
    UNION
    WITH x, token, '+scope_token:' + token + '^0 +text:' AS scoped,
         '"' + replace(replace(x.name, '\\', '\\\\'), '"', '\\"') AS phrase
    WHERE token IS NOT NULL AND x.name =~ '(?s).*[\\p{L}\\p{N}].*' AND NOT x.name CONTAINS '\\E'
    // the name, then its possessive (one token for the index: "Lily's"); a name the index drops (a stop
    // word: "Will") asks for no word at all: the user's first 10 * $slot_limit memories are checked instead
    UNWIND [scoped + phrase + '"', scoped + '(' + phrase + '\'s" OR ' + phrase + '’s")'] AS lucene
    CALL db.index.fulltext.queryNodes('memory_text_scoped', lucene, {limit: 10 * $slot_limit})
    YIELD node AS m
    // the name as written (any case when written in lower case), not inside a longer Latin word; a common given
    // name ($given_names, lower case) in any case in a text written all in lower case, one $capital_pattern does
    // not match ("greg agreed to pay 40%"; not "i hope so" for a daughter named Hope: no such name is listed)
    WHERE m.text =~ '(?s' + CASE WHEN toLower(x.name) = x.name
                                      OR toLower(x.name) IN $given_names AND NOT m.text =~ $capital_pattern
                                 THEN 'iu' ELSE '' END
                    + ').*(?<![\\p{IsLatin}\\p{N}])\\Q' + x.name + '\\E(?![\\p{IsLatin}\\p{N}]).*'
    RETURN m
  }
  UNWIND kin AS answer
  RETURN m, answer, 1 AS via
}
WITH m, answer, via
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND {{> recall/visible}}
WITH m, min(via) AS via, collect(DISTINCT answer) AS answers
// Each predicate asked has its newest memory in first ("What do you know about me?" asks for a dozen: the ten
// newest of all were likings, the user's name and home left out), then the rest, newest first.
UNWIND answers AS answer
WITH m, via, answers, answer ORDER BY m.created_at DESC, m.id
WITH answer, collect({m: m, via: via, answers: answers}) AS newest_first
UNWIND range(0, size(newest_first) - 1) AS rank
WITH newest_first[rank] AS row, rank
WITH row.m AS m, row.via AS via, row.answers AS answers, min(rank) AS rank
ORDER BY via, rank, m.created_at DESC, m.id
LIMIT $slot_limit
