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

    model: str = "e5-small-q4"
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
