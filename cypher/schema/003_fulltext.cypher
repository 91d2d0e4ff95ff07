// Full-text over memory text. The 'cjk' analyzer indexes Chinese as overlapping bigrams and English
// as lower-cased words, so 火锅 finds 上次在成都吃的火锅很棒 and "spicy" finds "I love spicy food".
// (Measured against standard-no-stop-words, which indexes single Han characters and so matches
// almost any Chinese sentence for a query like 推荐一个火锅店.)
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (m:Memory) ON EACH [m.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}}
