"""CLI of recall (issue 4): `bmam recall`, `bmam related`, `bmam context`. Each prints JSON (one object a
line for lists); errors print one line and exit non-zero (2 for bad input)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from bmam.cli_support import (
    HistoryOpt,
    TenantOpt,
    TiersOpt,
    TypesOpt,
    UserOpt,
    echo,
    echo_json,
    memory_json,
    run_for,
    run_for_user,
)
from bmam.container import Container
from bmam.usecases.recall import RecalledMemory, RecallRequest, RecallResult
from ingest.periods import Period


def _recalled(m: RecalledMemory) -> dict[str, Any]:
    s = m.scores
    return {
        **memory_json(m.memory),
        "scores": {"vector": round(s.vector, 4), "fulltext": round(s.fulltext, 4), "graph": round(s.graph, 4),
                   "freshness": round(s.freshness, 4), "weight": round(s.weight, 4),
                   "relevance": round(s.relevance, 4), "damping": round(s.damping, 4), "final": round(s.final, 4)},
        "why": m.why,
    }


def _period(p: Period | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"start": p.start.isoformat(), "end": p.end.isoformat(), "words": p.words, "open_question": p.open_question}


TimeZoneOpt = Annotated[str | None, typer.Option(
    "--time-zone", help="The user's IANA time zone (Europe/Berlin) for questions about a past period ('What did I "
                        "do yesterday?') and the date and time a context prompt opens with; default: the setting "
                        "recall.time_zone (UTC).")]


def register(app: typer.Typer) -> None:
    @app.command("recall")
    def recall_command(
        user: UserOpt,
        query: Annotated[str, typer.Argument(help="What the user just said.")],
        k: Annotated[int | None, typer.Option("-k", help="At most this many memories (default 5).")] = None,
        session: Annotated[str | None, typer.Option("--session", "-s",
                                                    help="Session id: enables anti-repetition.")] = None,
        type: TypesOpt = None,
        tier: TiersOpt = None,
        min_score: Annotated[float, typer.Option("--min-score")] = 0.0,
        include_history: Annotated[bool, typer.Option("--include-history",
                                                      help="Superseded memories too.")] = False,
        as_of: Annotated[datetime | None, typer.Option("--as-of", help="Memories valid at this time (ISO, "
                                                                        "with zone).")] = None,
        time_zone: TimeZoneOpt = None,
        tenant: TenantOpt = None,
    ) -> None:
        """Recall the memories that matter for QUERY: {gated, reason, period, memories: [... scores, why]}."""

        def work(c: Container, t: str) -> RecallResult:
            return c.recall.recall(t, RecallRequest(
                user_id=user, query=query, session_id=session, k=k, types=type, tiers=tier, min_score=min_score,
                include_history=include_history, as_of=as_of, time_zone=time_zone))

        result = run_for_user(tenant, user, work, empty=lambda r: not r.memories)
        echo_json({"gated": result.gated, "reason": result.reason, "best_similarity": result.best_similarity,
                   "period": _period(result.period), "memories": [_recalled(m) for m in result.memories]})

    @app.command("related")
    def related_command(
        user: UserOpt,
        memory_id: Annotated[str, typer.Argument(help="The memory to start from.")],
        depth: Annotated[int | None, typer.Option(
            "--depth", "-d", help="Hops, 1..5 (default: the setting recall.related_depth, 2).")] = None,
        limit: Annotated[int | None, typer.Option(
            "--limit", "-n", help="At most this many (default: the setting recall.related_limit, 20).")] = None,
        min_strength: Annotated[float | None, typer.Option(
            "--min-strength", help="Weakest edge followed (default: the setting recall.related_min_strength, "
                                   "0.05).")] = None,
        include_history: HistoryOpt = False,
        tenant: TenantOpt = None,
    ) -> None:
        """Memories related to MEMORY_ID over associations and shared entities, best path first (one JSON a line)."""
        found = run_for(tenant, lambda c, t: c.recall.related(t, user, memory_id, depth=depth, limit=limit,
                                                              min_strength=min_strength,
                                                              include_history=include_history))
        for r in found:
            echo_json({"score": round(r.score, 6), **memory_json(r.memory),
                   "path": [{"from": s.from_id, "to": s.to_id, "via": s.via.value, "strength": round(s.strength, 6),
                             "entity": s.entity} for s in r.path]})

    @app.command("context")
    def context_command(
        user: UserOpt,
        session: Annotated[str, typer.Option("--session", "-s", help="The conversation session.")],
        text: Annotated[str, typer.Argument(help="The user's new input.")],
        budget: Annotated[int | None, typer.Option("--budget", "-b", help="Characters (default 2000).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="The whole answer as JSON.")] = False,
        time_zone: TimeZoneOpt = None,
        tenant: TenantOpt = None,
    ) -> None:
        """The context prompt for an LLM: the current date and time, how the user wants to be answered, relevant
        memories and the recent turns of the session."""
        prompt = run_for_user(tenant, user, lambda c, t: c.recall.context_prompt(t, user, session, text, budget,
                                                                                 time_zone),
                              empty=lambda p: not (p.memories or p.reply_styles))
        if not as_json:
            echo(prompt.text)
            return
        echo_json({"text": prompt.text, "gated": prompt.gated, "reason": prompt.reason,
                   "period": _period(prompt.period),
               "memories": [_recalled(m) for m in prompt.memories],
               "turns": [{"speaker": t.speaker, "text": t.text, "at": t.at.isoformat(), "turn": t.turn}
                         for t in prompt.turns],
               "replyStyles": [memory_json(m) for m in prompt.reply_styles]})
