"""GraphQL face of recall (issue 4): recall, relatedSearch and contextPrompt."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from bmam.usecases import recall as recall_cases
from graph import related as related_model
from ingest.periods import Period
from resolvers.context import Info, call
from resolvers.types import Memory, MemoryType, Tier


@strawberry.type(description="How a recalled memory scored. vector is the raw cosine with the input (-1..1); "
                             "every other part is in [0, 1]: final = (0.7 relevance + 0.3 freshness) x weight "
                             "factor x damping (README 'Recall').")
class RecallScores:
    vector: float
    fulltext: float
    graph: float
    freshness: float
    weight: float
    relevance: float
    damping: float = strawberry.field(description="Anti-repetition multiplier: 1 unless the session surfaced "
                                                  "this memory, or its dominant term, in the last turns.")
    final: float


@strawberry.type(description="A memory recall returned, with its score breakdown and why it was chosen.")
class RecalledMemory:
    memory: Memory
    scores: RecallScores
    why: str

    @classmethod
    def of(cls, m: recall_cases.RecalledMemory) -> RecalledMemory:
        s = m.scores
        return cls(memory=Memory.of(m.memory), why=m.why,
                   scores=RecallScores(vector=s.vector, fulltext=s.fulltext, graph=s.graph, freshness=s.freshness,
                                       weight=s.weight, relevance=s.relevance, damping=s.damping, final=s.final))


@strawberry.type(description="The past period an input asks about ('What did I do yesterday?', 上周末我去了哪里？): "
                             "only memories said (or said again) at start <= t < end were recalled; days counted "
                             "in the time zone asked for (timeZone, else the server's recall.time_zone).")
class RecallPeriod:
    start: datetime
    end: datetime
    words: str = strawberry.field(description="The time words of the input ('last weekend').")
    open_question: bool = strawberry.field(description="The input asks only what happened then: every memory "
                                                       "said then answers it.")

    @classmethod
    def of(cls, p: Period | None) -> RecallPeriod | None:
        if p is None:
            return None
        return cls(start=p.start, end=p.end, words=p.words, open_question=p.open_question)


@strawberry.type(description="gated: nothing the user said before relates to the input, so no memories (never "
                             "'the nearest anyway'); reason says why either way.")
class RecallResult:
    gated: bool
    reason: str
    memories: list[RecalledMemory]
    best_similarity: float | None = strawberry.field(description="The best cosine any memory had with the input.")
    period: RecallPeriod | None = strawberry.field(description="The past period the input asks about, if any.")

    @classmethod
    def of(cls, r: recall_cases.RecallResult) -> RecallResult:
        return cls(gated=r.gated, reason=r.reason, memories=[RecalledMemory.of(m) for m in r.memories],
                   best_similarity=r.best_similarity, period=RecallPeriod.of(r.period))


@strawberry.enum(description="How one memory reaches the next: an ASSOCIATED edge, or an ENTITY both mention.")
class PathVia(Enum):
    ASSOCIATED = "ASSOCIATED"
    ENTITY = "ENTITY"


@strawberry.type(description="One hop of a related-search path; entity names the shared entity of an ENTITY hop.")
class PathStep:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    via: PathVia
    strength: float
    entity: str | None


@strawberry.type(description="A memory related to the start memory: score is the product of the strengths "
                             "along path, its best path within the depth.")
class RelatedMemory:
    memory: Memory
    score: float
    path: list[PathStep]

    @classmethod
    def of(cls, r: related_model.RelatedMemory) -> RelatedMemory:
        return cls(memory=Memory.of(r.memory), score=r.score, path=[
            PathStep(from_=strawberry.ID(s.from_id), to=strawberry.ID(s.to_id), via=PathVia(s.via.value),
                     strength=s.strength, entity=s.entity)
            for s in r.path
        ])


@strawberry.type(description="A turn of the session shown in a context prompt.")
class ContextTurn:
    speaker: str
    text: str
    at: datetime
    turn: int


@strawberry.type(description="Text for an LLM: the current date and time in the user's time zone ('Now: Monday "
                             "2026-12-07 14:05 (Europe/Berlin)'), how the user wants to be answered, the relevant "
                             "memories ('[FACTUAL, 3 days ago] ...') and the recent turns of the session, within the "
                             "character budget.")
class ContextPrompt:
    text: str
    memories: list[RecalledMemory]
    turns: list[ContextTurn]
    gated: bool
    reason: str
    period: RecallPeriod | None = strawberry.field(description="The past period the input asks about, if any.")
    reply_styles: list[Memory] = strawberry.field(
        description="How the user wants to be answered ('keep your answers short'), newest first, as the text shows "
                    "them in a section of their own on every turn, gated or not (at most the server's "
                    "recall.context_reply_styles). Not recalled: their use is not recorded.")

    @classmethod
    def of(cls, p: recall_cases.ContextPrompt) -> ContextPrompt:
        return cls(text=p.text, memories=[RecalledMemory.of(m) for m in p.memories], gated=p.gated, reason=p.reason,
                   turns=[ContextTurn(speaker=t.speaker, text=t.text, at=t.at, turn=t.turn) for t in p.turns],
                   period=RecallPeriod.of(p.period), reply_styles=[Memory.of(m) for m in p.reply_styles])


_TIME_ZONE = ("The user's IANA time zone (Europe/Berlin): how the days of a question about a past period are counted "
              "('yesterday'); null: the server's recall.time_zone (UTC unless configured).")
_PROMPT_TIME_ZONE = ("The user's IANA time zone (Europe/Berlin): the date and time the text opens with, and how the "
                     "days of a question about a past period are counted ('yesterday'); null: the server's "
                     "recall.time_zone (UTC unless configured).")


@strawberry.type
class RecallQuery:
    @strawberry.field(description="The few memories that matter for the input: dense and full-text candidates, "
                                  "fused, expanded over the graph, weighed by freshness and weight, damped when "
                                  "the session surfaced them lately; gated when nothing relates. Records the use "
                                  "of what it returns (recall_count, lastRecalledAt, passive weight +0.1).")
    async def recall(
        self,
        info: Info,
        user_id: str,
        query: str,
        session_id: str | None = None,
        k: int | None = None,
        types: list[MemoryType] | None = None,  # type: ignore[valid-type]
        tiers: list[Tier] | None = None,  # type: ignore[valid-type]
        min_score: float = 0.0,
        include_history: bool = False,
        as_of: datetime | None = None,
        time_zone: Annotated[str | None, strawberry.argument(description=_TIME_ZONE)] = None,
    ) -> RecallResult:
        ctx = info.context
        request = recall_cases.RecallRequest(
            user_id=user_id, query=query, session_id=session_id, k=k, types=types, tiers=tiers, min_score=min_score,
            include_history=include_history, as_of=as_of, time_zone=time_zone,
        )
        return RecallResult.of(await call(ctx.container.recall.recall, ctx.tenant, request))

    @strawberry.field(description="Memories related to one memory over ASSOCIATED edges and shared entities, at "
                                  "most depth hops (1..5; outside that BAD_USER_INPUT), best path first. "
                                  "NOT_FOUND when the memory is not this user's. depth, limit and minStrength "
                                  "left out or null take the server's settings recall.related_depth, "
                                  "recall.related_limit and recall.related_min_strength (2, 20 and 0.05 unless "
                                  "configured).")
    async def related_search(
        self,
        info: Info,
        user_id: str,
        memory_id: strawberry.ID,
        depth: int | None = None,
        limit: int | None = None,
        min_strength: float | None = None,
        include_history: bool = False,
    ) -> list[RelatedMemory]:
        ctx = info.context
        found = await call(ctx.container.recall.related, ctx.tenant, user_id, str(memory_id), depth=depth,
                           limit=limit, min_strength=min_strength, include_history=include_history)
        return [RelatedMemory.of(r) for r in found]

    @strawberry.field(description="The current date and time, the recent turns of the session and the (gated) "
                                  "relevant memories as text for an LLM, within budget characters. Counts as a "
                                  "recall turn of the session.")
    async def context_prompt(
        self, info: Info, user_id: str, session_id: str, input: str, budget: int | None = None,
        time_zone: Annotated[str | None, strawberry.argument(description=_PROMPT_TIME_ZONE)] = None,
    ) -> ContextPrompt:
        ctx = info.context
        prompt = await call(ctx.container.recall.context_prompt, ctx.tenant, user_id, session_id, input, budget,
                            time_zone)
        return ContextPrompt.of(prompt)
