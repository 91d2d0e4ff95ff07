"""The cosine lines the container hands the use-cases: a configured line is used as given, 0.0 included (0.0 is a
valid setting, and `configured or default` read it as unset)."""

from __future__ import annotations

from bmam.container import Container
from bmam.settings import LivingSettings, Settings
from bmam.usecases.conflicts import CONFLICT_SIMILARITY_UNMEASURED, conflict_lines
from bmam.usecases.maintenance import MERGE_SIMILARITY_UNMEASURED, merge_similarity_for


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
    calibrations = Settings().recall.calibration
    usem3, e5 = calibrations["usem3"], calibrations["e5-small-q4"]
    living = LivingSettings()
    lines = conflict_lines(usem3, living)
    assert (lines.negation, lines.favourite, lines.cancel, lines.translated) == (
        usem3.conflict_similarity, usem3.favourite_similarity, usem3.cancel_similarity, usem3.translated_similarity)
    # e5 measured only its negation line: the favourite and cancellation rules take it, no translation line
    lines = conflict_lines(e5, living)
    assert (lines.negation, lines.favourite, lines.cancel, lines.translated) == (0.90, 0.90, 0.90, None)
    assert conflict_lines(None, living).negation == CONFLICT_SIMILARITY_UNMEASURED
    assert conflict_lines(e5, LivingSettings(conflict_similarity=0.0)).negation == 0.0
    assert merge_similarity_for(e5, None) == e5.merge_similarity == 0.975
    assert merge_similarity_for(None, None) == MERGE_SIMILARITY_UNMEASURED
    assert merge_similarity_for(usem3, 0.5) == 0.5


def test_a_model_not_listed_gets_the_fallbacks_not_usem3s(settings: Settings) -> None:
    other = settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"model": "not-measured"})})
    c = Container(other)
    try:
        assert c.measured_lines is None
        assert c.conflict_lines.negation == CONFLICT_SIMILARITY_UNMEASURED
    finally:
        c.close()
