"""CLI of a memory's links: its triples (`bmam triples`, `bmam add-triple`) and its associations (`bmam
associations`, `bmam associate`, `bmam dissociate`). Each prints JSON (one object a line for lists); errors print
one line and exit non-zero (2 for bad input), as the GraphQL API answers them."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bmam.cli_support import TenantOpt, UserOpt, echo_json, run_for
from graph.model import Association, Triple


def _triple(t: Triple) -> dict[str, Any]:
    return {"id": t.id, "memory_id": t.memory_id, "subject": t.subject.name, "subject_kind": t.subject.kind,
            "predicate": t.predicate, "object": t.object.name, "object_kind": t.object.kind,
            "polarity": t.polarity, "valid_to": t.valid_to.isoformat() if t.valid_to else None}


def _association(a: Association) -> dict[str, Any]:
    return {"memory_a": a.memory_a, "memory_b": a.memory_b, "strength": round(a.strength, 6)}


MemoryArg = Annotated[str, typer.Argument(help="A memory id of the user.")]


def register(app: typer.Typer) -> None:
    @app.command("triples")
    def triples_command(user: UserOpt, memory_id: MemoryArg, tenant: TenantOpt = None) -> None:
        """The triples a memory asserts, one JSON object a line."""
        for triple in run_for(tenant, lambda c, t: c.memories.triples(t, user, memory_id)):
            echo_json(_triple(triple))

    @app.command("add-triple")
    def add_triple_command(
        user: UserOpt,
        memory_id: MemoryArg,
        subject: Annotated[str, typer.Argument()],
        predicate: Annotated[str, typer.Argument()],
        object_: Annotated[str, typer.Argument(metavar="OBJECT")],
        subject_kind: Annotated[str, typer.Option("--subject-kind")] = "thing",
        object_kind: Annotated[str, typer.Option("--object-kind")] = "thing",
        negated: Annotated[bool, typer.Option("--negated", help="The memory denies it (polarity -1).")] = False,
        tenant: TenantOpt = None,
    ) -> None:
        """Add a triple the memory asserts, then run its conflict detection and association forming again (as
        addTriple does); prints the triple as the hooks left it."""
        triple = run_for(tenant, lambda c, t: c.memories.add_triple(
            t, user, memory_id=memory_id, subject=subject,
            predicate=predicate, object_=object_, subject_kind=subject_kind, object_kind=object_kind,
            polarity=-1 if negated else 1))
        echo_json(_triple(triple))

    @app.command("associations")
    def associations_command(user: UserOpt, memory_id: MemoryArg, tenant: TenantOpt = None) -> None:
        """A memory's associations with live memories, strongest first, one JSON object a line."""
        for a in run_for(tenant, lambda c, t: c.memories.associations(t, user, memory_id)):
            echo_json(_association(a))

    @app.command("associate")
    def associate_command(
        user: UserOpt,
        memory_a: MemoryArg,
        memory_b: MemoryArg,
        strength: Annotated[float, typer.Option("--strength", "-s", help="In [0, 1]; 0 says 'not related'.")],
        tenant: TenantOpt = None,
    ) -> None:
        """Set the association of two memories (the user's word on the pair: forming again does not raise it)."""
        echo_json(_association(run_for(tenant, lambda c, t: c.memories.associate(t, user, memory_a, memory_b,
                                                                                 strength))))

    @app.command("dissociate")
    def dissociate_command(user: UserOpt, memory_a: MemoryArg, memory_b: MemoryArg, tenant: TenantOpt = None) -> None:
        """Remove the association of two memories ({removed: false} when they had none); the system may form it
        again, `bmam associate --strength 0` keeps them apart."""
        removed = run_for(tenant, lambda c, t: c.memories.dissociate(t, user, memory_a, memory_b))
        echo_json({"memory_a": memory_a, "memory_b": memory_b, "removed": removed})
