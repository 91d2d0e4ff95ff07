// Full-text over memory text. The 'cjk' analyzer indexes Chinese as overlapping bigrams and English
// as lower-cased words, so 火锅 finds 上次在成都吃的火锅很棒 and "spicy" finds "I love spicy food".
// (Measured against standard-no-stop-words, which indexes single Han characters and so matches
// almost any Chinese sentence for a query like 推荐一个火锅店.)
// The index also holds each memory's scope_token (graph/scope_token.py: one word naming its user), so a
// search names its user inside Lucene (+scope_token:... ^0 +text:(...)) and gets that user's best hits,
// however many other users' memories match better. The first index, over the text alone, returned the
// store's best hits, filtered to the user afterwards: on a shared store a user's own hits fell outside
// them. Memories written before the tokens get them from graph/migrations.py (data step scope_tokens).
DROP INDEX memory_text IF EXISTS;
CREATE FULLTEXT INDEX memory_text_scoped IF NOT EXISTS FOR (m:Memory) ON EACH [m.text, m.scope_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}}
