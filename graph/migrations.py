"""Schema migrations: applies every file in cypher/schema/ idempotently and records it; then the data
steps (work on stored data the schema files cannot do in Cypher alone), each once."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from graph.cypher_library import names, statement, statements
from graph.scope_token import scope_token
from graph.store import GraphStore
from graph.text_key import text_key

SCHEMA_FOLDER = "schema"
# Data steps by name, recorded like schema files once done.
SCOPE_TOKENS = "data/scope_tokens"
TEXT_KEYS = "data/text_keys"
HISTORY_UNLOCKED = "data/history_unlocked"
DATA_STEPS = (SCOPE_TOKENS, TEXT_KEYS, HISTORY_UNLOCKED)


@dataclass(frozen=True, slots=True)
class MigrationReport:
    applied: list[str]
    statements_run: int


def schema_names() -> list[str]:
    return names(SCHEMA_FOLDER)


def apply_schema(store: GraphStore, *, vector_dimensions: int, now: datetime) -> MigrationReport:
    """Apply all schema files. Each statement says IF NOT EXISTS, so running this twice is harmless."""
    applied: list[str] = []
    count = 0
    # Neo4j allows one vector index per label and property: an index of another dimension (the
    # embedding model changed) is dropped so the new one can be built. Memories embedded by the old
    # model keep their vectors until re-embedded; searches skip vectors of the wrong size.
    for row in store.read("meta/vector_indexes"):
        if int(row["dimensions"]) != vector_dimensions:
            store.run_schema(statement("meta/drop_vector_index", vector_index=row["name"]))
            count += 1
    for name in schema_names():
        parts = statements(name, dimensions=vector_dimensions)
        for text in parts:
            store.run_schema(text)
            count += 1
        checksum = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
        store.write("meta/record_migration", {"name": name, "checksum": checksum, "now": now})
        applied.append(name)
    done = {row["name"] for row in store.read("meta/applied_migrations")}
    if SCOPE_TOKENS not in done:
        tokened = give_scope_tokens(store)
        store.write("meta/record_migration", {"name": SCOPE_TOKENS, "checksum": f"{tokened} memories", "now": now})
        applied.append(SCOPE_TOKENS)
    if TEXT_KEYS not in done:
        keyed = give_text_keys(store)
        store.write("meta/record_migration", {"name": TEXT_KEYS, "checksum": f"{keyed} memories", "now": now})
        applied.append(TEXT_KEYS)
    if HISTORY_UNLOCKED not in done:
        unlocked = unlock_history(store, now=now)
        store.write("meta/record_migration", {"name": HISTORY_UNLOCKED, "checksum": f"{unlocked} memories",
                                              "now": now})
        applied.append(HISTORY_UNLOCKED)
    store.read("meta/await_indexes")
    return MigrationReport(applied=applied, statements_run=count)


def unlock_history(store: GraphStore, *, now: datetime, tenant: str | None = None) -> int:
    """Take out of core the history stored locked there (cypher/meta/unlock_history): the losers the user's
    settlements superseded before a settlement unlocked them; of one tenant only when given. Returns how many."""
    return int(store.write("meta/unlock_history", {"now": now, "tenant": tenant}, timeout_s=600.0)[0]["unlocked"])


def give_scope_tokens(store: GraphStore, *, users_per_transaction: int = 100) -> int:
    """Give every memory without a scope_token its user's (graph/scope_token.py): the memories written
    before the full-text index held tokens. Returns how many memories were given one."""
    scopes = [{"tenant": r["tenant"], "user_id": r["user_id"], "token": scope_token(r["tenant"], r["user_id"])}
              for r in store.read("meta/scopes_without_token", timeout_s=600.0)]
    tokened = 0
    for start in range(0, len(scopes), users_per_transaction):
        part = scopes[start:start + users_per_transaction]
        tokened += int(store.write("meta/set_scope_tokens", {"scopes": part}, timeout_s=600.0)[0]["tokened"])
    return tokened


def give_text_keys(store: GraphStore, *, page: int = 5000) -> int:
    """Give every memory without a text_key its text's (graph/text_key.py): the memories written before
    memories held one. Pages through all memories by id; returns how many were given one."""
    keyed = 0
    after = ""
    while True:
        rows = store.read("meta/memory_texts_after", {"after": after, "limit": page}, timeout_s=600.0)
        if not rows:
            return keyed
        missing = [{"id": r["id"], "key": text_key(str(r["text"] or ""))} for r in rows if r["missing"]]
        if missing:
            keyed += int(store.write("meta/set_text_keys", {"rows": missing}, timeout_s=600.0)[0]["keyed"])
        after = str(rows[-1]["id"])


def missing_migrations(store: GraphStore) -> list[str]:
    """Schema files and data steps not yet recorded as applied (for /healthz)."""
    done = {row["name"] for row in store.read("meta/applied_migrations")}
    return [name for name in (*schema_names(), *DATA_STEPS) if name not in done]


def index_states(store: GraphStore) -> dict[str, str]:
    return {row["name"]: row["state"] for row in store.read("meta/index_states")}
