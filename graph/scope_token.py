"""The scope token: the one word that names a user's memories in the full-text index (memory_text_scoped),
so a search asks Lucene for that user's own best hits rather than the store's (see cypher/schema/003)."""

from __future__ import annotations

import hashlib

from graph.model import Scope


def scope_token(tenant: str, user_id: str) -> str:
    """'u' and 32 hex digits of sha256(tenant, user_id): a single token for the cjk analyzer (lower-case
    letters and digits, no stop word), the same wherever it is computed, so no statement reads it first."""
    digest = hashlib.sha256(f"{tenant}\x00{user_id}".encode()).hexdigest()
    return f"u{digest[:32]}"


def scoped_query(scope: Scope, lucene: str | None) -> str | None:
    """A full-text query over one user's memories: the scope token as a required clause with boost 0 (it
    filters inside Lucene and adds nothing to the scores) and the escaped term query on the text. None when
    there is no term query (an input without searchable terms): the statements then skip the index."""
    if not lucene:
        return None
    return f"+scope_token:{scope_token(scope.tenant, scope.user_id)}^0 +text:({lucene})"
