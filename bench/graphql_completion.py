"""GraphQL completion in process: the time the schema takes to turn a use case's answer into the response data,
with resolvers/plain_fields.py (this schema) against Strawberry's own execution context, alternating rounds.

    .venv/bin/python bench/graphql_completion.py [--tenant bench-lat] [--size 10000] [--rounds 6]

The answers are real: relatedSearch (depth 3, every memory field, the bench client's document) from the first
200 real memories of a bench user kept by `bench/recall_latency.py --keep --tenant NAME`, and recall (k = 5)
of the eval questions; each is read once, then the use case answers from that table, so only completion is
timed (parsing and validation are cached by resolvers/documents.py in the service, and here by the schema's
own cache of checked documents). Both schemas must return the same data for every request (checked first).
Prints p50 / p95 of each and the ratio this / Strawberry's own.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from bench.eval_data import generate
from bench.recall_latency import TIMED_RECALL, add_kept_user_arguments, alternating_rounds, kept_user, pct
from bmam.client import MEMORY_FIELDS
from bmam.container import Container
from bmam.settings import load_settings
from bmam.usecases.keys import Principal
from bmam.usecases.recall import RecallRequest
from resolvers.context import RequestContext
from resolvers.schema import build_schema

RELATED = ("query Related($u: String!, $m: ID!, $d: Int!) { relatedSearch(userId: $u, memoryId: $m, depth: $d) {"
           f" score path {{ from to via strength entity }} memory {{ {MEMORY_FIELDS} }} }} }}")
RECALL = TIMED_RECALL.replace("query(", "query Recall(")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_kept_user_arguments(parser, rounds=6)
    args = parser.parse_args(argv)
    user, real = kept_user(args.tenant, args.size)
    container = Container(load_settings())
    questions = [q.text for q in generate(seed=3, users=2).questions]
    memory_ids = real[:200]
    related_vars = [{"u": user, "m": memory_id, "d": 3} for memory_id in memory_ids]
    recall_vars = [{"u": user, "q": q, "k": 5} for q in questions]
    related = {memory_id: container.recall.related(args.tenant, user, memory_id, depth=3) for memory_id in memory_ids}
    recalled = {q: container.recall.recall(args.tenant, RecallRequest(user_id=user, query=q, k=5)) for q in questions}
    # From here the use cases answer from these tables: only completion is timed.
    container.recall.related = lambda tenant, user_id, memory_id, **_kw: related[memory_id]  # type: ignore[method-assign]
    container.recall.recall = lambda tenant, request: recalled[request.query]  # type: ignore[method-assign]

    plain, own = build_schema(), build_schema()
    own.execution_context_class = StrawberryGraphQLCoreExecutionContext
    principal = Principal(tenant=args.tenant, key_id="bench", key_name="graphql-completion")
    loop = asyncio.new_event_loop()

    def run(schema: Any, document: str, variables: dict[str, Any]) -> Any:
        context = RequestContext(container=container, principal=principal)
        result = loop.run_until_complete(schema.execute(document, variable_values=variables, context_value=context))
        if result.errors:
            raise SystemExit(f"errors: {result.errors}")
        return result.data

    try:
        mean_results = sum(len(r) for r in related.values()) / len(related)
        print(f"bench/graphql_completion.py, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; {user} of "
              f"{args.tenant}; relatedSearch depth 3: {len(related_vars)} memories, {mean_results:.1f} results "
              f"each; recall: {len(recall_vars)} questions, k = 5; {args.rounds} alternating rounds")
        for name, document, variables in (("relatedSearch d3", RELATED, related_vars), ("recall", RECALL, recall_vars)):
            for v in variables:
                if run(plain, document, v) != run(own, document, v):
                    raise SystemExit(f"{name}: the two schemas answered {v} differently")

            def on_plain(v: dict[str, Any], d: str = document) -> Any:
                return run(plain, d, v)

            def on_own(v: dict[str, Any], d: str = document) -> Any:
                return run(own, d, v)

            walls = alternating_rounds([("plain", on_plain), ("own", on_own)], variables, args.rounds)
            a, b = walls["plain"], walls["own"]
            print(f"{name}: plain fields p50 / p95 {pct(a, 0.5):.2f} / {pct(a, 0.95):.2f} ms, Strawberry's own "
                  f"{pct(b, 0.5):.2f} / {pct(b, 0.95):.2f} ms; ratio p50 {pct(a, 0.5) / pct(b, 0.5):.2f}, "
                  f"p95 {pct(a, 0.95) / pct(b, 0.95):.2f} ({len(a)} each; same data for every request)", flush=True)
    finally:
        loop.close()
        container.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
