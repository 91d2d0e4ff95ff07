"""The embedding model is loaded when something is embedded, not when bmam starts: a command that embeds
nothing (listing memories, the tiers, forgetting...) does not pay for importing sentence-transformers and
torch (~9 s on 2 cores). A server still loads it before its first request (Container.load_embedding_model,
tests/test_api_foundation.py serves through it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.memories import RememberRequest

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Runs one bmam command in this process, then says whether the model's library was imported.
PROBE = """
import sys
from bmam.cli import main
sys.argv = ["bmam", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
print("embedding library imported:", "sentence_transformers" in sys.modules, "exit:", code, file=sys.stderr)
"""


def _probe(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=180, check=False)
    return done.stderr.strip().splitlines()[-1]


def test_listing_memories_does_not_load_the_model(container: Container, tenant: str) -> None:
    container.memories.remember(tenant, RememberRequest(user_id="zoe", text="I keep bees on my roof", type="FACTUAL"))
    assert _probe("memories", "-u", "zoe", "--tenant", tenant) == "embedding library imported: False exit: 0"
    assert _probe("tiers", "usage", "-u", "zoe", "--tenant", tenant) == "embedding library imported: False exit: 0"
    # (a command that embeds loads it: the probe can tell, `bmam recall` in the same probe says True; not run
    # here, it costs a model load, ~12 s; the container test below checks the first embedding loads it)


def test_a_container_loads_the_model_at_its_first_embedding(settings: Settings, tenant: str) -> None:
    c = Container(settings)
    try:
        c.memories.page(tenant, "zoe")
        assert c.embedder.dim == c.vector_dimensions  # known without the model
        assert c.embedding_model_loaded is False
        c.memories.remember(tenant, RememberRequest(user_id="zoe", text="I keep bees", type="FACTUAL"))
        assert c.embedding_model_loaded is True
    finally:
        c.close()
