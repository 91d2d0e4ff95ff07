"""Feedback and decay use-cases: the user's reaction to a memory moves its active weight part (DESIGN.md
"Weights"); time moves its passive part. Every change is atomic in Cypher (graph/weights.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bmam import validate
from bmam.clock import Clock
from graph.errors import BadInput, Conflict, NotFound
from graph.model import Memory, Scope
from graph.weights import WeightRepository
from ingest.weights import FeedbackSignal, WeightPolicy, feedback_delta


def parse_signal(value: str | FeedbackSignal) -> FeedbackSignal:
    try:
        return FeedbackSignal(str(value).upper())
    except ValueError as exc:
        choices = ", ".join(s.value for s in FeedbackSignal)
        raise BadInput(f"unknown feedback signal {value!r}; one of {choices}", field="signal") from exc


class FeedbackUseCases:
    def __init__(self, *, clock: Clock, weights: WeightRepository, policy: WeightPolicy) -> None:
        self._clock = clock
        self._weights = weights
        self.policy = policy

    def feedback(self, tenant: str, user_id: str, memory_id: str, signal: str | FeedbackSignal) -> Memory:
        """LIKE / DISLIKE move `active` by +/-0.5, DWELL / SKIP by +/-0.2 (clamped), after bringing the
        memory's decay up to now. NOT_FOUND for a memory that is missing or belongs to someone else."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        memory_id = validate.identifier(memory_id, field="memoryId")
        parsed = parse_signal(signal)
        updated = self._weights.adjust_active(scope, memory_id, feedback_delta(parsed, self.policy),
                                              self.policy.cypher_params(), self._clock.now())
        if updated is None:
            raise NotFound(f"memory {memory_id} not found")
        if updated.valid_to is not None:  # as react, lock and correct refuse history: its weight is no one's use
            raise Conflict(f"memory {memory_id} is superseded history (validTo set): feedback on it is refused "
                           "(its successor takes feedback; forget removes it)")
        return updated

    def decay(self, tenant: str, user_id: str, memory_ids: Sequence[str] | None = None) -> int:
        """Lazily bring a user's memories (or some of them) up to now; how many changed."""
        scope = Scope(tenant=tenant, user_id=validate.identifier(user_id, field="userId"))
        ids = [validate.identifier(m, field="memoryIds") for m in memory_ids] if memory_ids is not None else None
        return len(self._weights.decay_user(scope, self.policy.cypher_params(), self._clock.now(), ids=ids))

    def recalled(self, scope: Scope, memory_ids: Sequence[str]) -> dict[str, float]:
        """passive + 0.1 for each recalled memory, decayed to now first (for recall, issue 4)."""
        if not memory_ids:
            return {}
        return self._weights.record_recall(scope, memory_ids, self.policy.cypher_params(), self.policy.recall_boost,
                                           self._clock.now())
