"""Recall's `why` text, pure (ingest/scoring.py): each thing it names is named once, in its order."""

from __future__ import annotations

from ingest.scoring import Candidate, ScoringParams, score_candidates, terms

P = ScoringParams(sim_floor=0.2, sim_ceiling=0.6, gate_similarity=0.25, gate_similarity_general=0.33)


def test_the_slots_a_memory_states_are_named_once_in_order() -> None:
    """A memory holding two triples of one slot ("I live in Seattle", "we moved to Seattle") answered
    "states the user's lives_in, lives_in"; now each slot once, in the order found, still at most three."""
    c = Candidate(id="a", text="I live in Seattle now, we moved to Seattle", cosine=0.6, hours=10.0, weight=0.5,
                  dense_rank=1, answers=("lives_in", "lives_in", "works_at", "lives_in", "likes", "born_in"))
    [scored] = score_candidates([c], "Where do I live?", terms("Where do I live?"), P, own_fact=True)
    assert "states the user's lives_in, works_at, likes;" in scored.why + ";"
    assert scored.why.count("lives_in") == 1 and "born_in" not in scored.why
