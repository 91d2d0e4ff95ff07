"""schema.graphql is exported from the code; this fails when the two drift apart."""

from __future__ import annotations

from pathlib import Path

from strawberry.printer import print_schema

from resolvers.schema import schema

SDL = Path(__file__).resolve().parent.parent / "schema.graphql"


def test_schema_graphql_matches_the_code() -> None:
    exported = print_schema(schema).strip()
    committed = SDL.read_text(encoding="utf-8").strip()
    assert exported == committed, (
        "schema.graphql is stale: run `.venv/bin/strawberry export-schema resolvers.schema:schema "
        "--output schema.graphql`"
    )
