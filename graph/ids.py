"""Ids: random for new memories, derived (stable) where the same input must map to the same node."""

from __future__ import annotations

import hashlib
import uuid

from graph.model import Scope


def digest(*parts: str) -> str:
    """A stable 32-hex digest of the parts (derived ids, RDF statement IRIs)."""
    # \x1f separates parts so ("ab", "c") and ("a", "bc") never collide.
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def log_name(scope: Scope) -> str:
    """How logs name a user: the tenant and a digest of the user id, never the id itself (an app may use e-mail
    addresses as user ids, and logs outlive forgetUser). To find a user's lines: `bmam check --user ID` prints it."""
    return f"{scope.tenant}/u:{digest(scope.tenant, scope.user_id)[:12]}"


def log_session(scope: Scope, session_id: str) -> str:
    """How logs name a session (its id may hold the user's): a digest, as log_name names the user."""
    return f"s:{digest(scope.tenant, scope.user_id, session_id)[:12]}"


def new_memory_id() -> str:
    return "m_" + uuid.uuid4().hex


def derived_id(prefix: str, scope: Scope, *parts: str) -> str:
    """A stable id inside one (tenant, user): ingesting the same turn twice gives the same ids."""
    return f"{prefix}_{digest(scope.tenant, scope.user_id, *parts)}"


def entity_id(scope: Scope, kind: str, name: str) -> str:
    return derived_id("e", scope, kind, name.strip().casefold())


def triple_id(scope: Scope, memory_id: str, subject_id: str, predicate: str, object_id: str) -> str:
    return derived_id("t", scope, memory_id, subject_id, predicate, object_id)
