"""The plan warm-up after a start: Neo4j's plan cache starts empty, and recall's statements are large (the first
recall after a restart spent ~1.8-2.5 s compiling them, relatedSearch 0.3-1.4 s a depth: BENCHMARKS.md "Recall
latency", sessions 19-20). Rehearses a few recalls of a user with memories (their transactions rolled back: nothing
is recorded) and relatedSearch at every depth from one of its memories, so the first requests find the plans
compiled. What runs is the real code with real parameters, so the plans are the ones requests use. Neo4j files a
plan under the size class of its string parameters too (a tenant or user id of 2-10 characters and one of 11-100
get plans of their own), so one user is rehearsed per size class of (tenant, user id) found in the store, the
biggest of each, at most MAX_SUBJECTS. RestartWatch runs it again when Neo4j restarts under a running bmam."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bmam.usecases.recall import RecallRequest, RecallUseCases
from graph.errors import NotFound
from graph.ids import log_name
from graph.model import Scope
from graph.related import MAX_DEPTH, MIN_DEPTH

# Questions whose recalls take the statements' usual shapes (Neo4j keeps a plan per statement and per set of
# parameter types, and an empty list is typed apart from a list of strings): plain, asking for one of the
# user's own facts (the slot statements), unrelated (gated), in English and in Chinese; each rehearsed twice
# (the first reads the user into the vector cache, the second goes the cached way, as later recalls do).
REHEARSED_QUESTIONS = ("What do I usually drink in the morning?", "What is my name?", "What's my job?",
                       "What is the capital of Peru?", "我平时喜欢做什么？", "我哥哥叫什么名字？", "什么是相对论？")

# Users rehearsed at most (one per size class of tenant and user id: ~4-8 s each, in the background).
MAX_SUBJECTS = 4


@dataclass(frozen=True, slots=True)
class WarmUpReport:
    users: tuple[str, ...]  # each user rehearsed with, as logs name them (graph.ids.log_name); none on an empty store
    recalls: int
    related_depths: int
    seconds: float


class PlanWarmUp:
    def __init__(self, recall: RecallUseCases, max_depth: int = MAX_DEPTH) -> None:
        self._recall = recall
        self._max_depth = min(MAX_DEPTH, max_depth)  # relatedSearch refuses depths past the limit

    def run(self, subjects: Sequence[tuple[Scope, str]] | None = None) -> WarmUpReport:
        """Rehearse on subjects (users and one memory of each), or on those the store names."""
        started = time.perf_counter()
        chosen = list(subjects) if subjects is not None else self._recall.rehearsal_subjects(MAX_SUBJECTS)
        if chosen:  # the example questions' embeddings (ingest/slot_meaning.py); an empty store loads no model
            self._recall.slot_examples.prepare()
            self._recall.request_examples.prepare()
        recalls = depths = 0
        for scope, memory_id in chosen:
            for _ in range(2):
                for question in REHEARSED_QUESTIONS:
                    self._recall.rehearse(scope.tenant, RecallRequest(user_id=scope.user_id, query=question, k=5))
                    recalls += 1
            for depth in range(MIN_DEPTH, self._max_depth + 1):
                with contextlib.suppress(NotFound):  # forgotten meanwhile: the plan compiled all the same
                    self._recall.related(scope.tenant, scope.user_id, memory_id, depth=depth)
                depths += 1
        return WarmUpReport(users=tuple(log_name(scope) for scope, _ in chosen), recalls=recalls,
                            related_depths=depths, seconds=time.perf_counter() - started)


class RestartWatch:
    """Warms the plans again after Neo4j restarts under a running bmam (its plan cache starts empty again).
    check() reads when the server started (started(): epoch ms, None when Neo4j will not say) and runs warm_up()
    (PlanWarmUp.run) when that moved since the last warm-up."""

    def __init__(self, warm_up: Callable[[], WarmUpReport], started: Callable[[], int | None]) -> None:
        self._warm_up = warm_up
        self._started = started
        self._warmed_for: int | None = None

    def warmed(self, started: int | None) -> None:
        """The plans were warmed for the server that started at `started` (the warm-up at bmam's own start)."""
        self._warmed_for = started

    def check(self) -> WarmUpReport | None:
        """The warm-up's report when it ran again, else None."""
        started = self._started()
        if started is None or started == self._warmed_for:
            return None
        report = self._warm_up()
        self._warmed_for = started
        return report
