"""API keys in Neo4j: one (:ApiKey) node per key holding its salted hash, never the secret."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.model import ApiKey
from graph.records import to_datetime
from graph.store import GraphStore


@dataclass(frozen=True, slots=True)
class StoredKeyHash:
    """What verifying a presented key needs: the key and its salt and hash."""

    key: ApiKey
    salt: str
    hash: str


def _key(row: dict[str, Any]) -> ApiKey:
    created = to_datetime(row["created_at"])
    assert created is not None
    return ApiKey(
        id=row["id"], tenant=row["tenant"], name=row["name"], prefix=row["prefix"], created_at=created,
        revoked_at=to_datetime(row.get("revoked_at")),
        # A key stored before keys had roles was made by the operator, or by a key that could then make keys.
        admin=row.get("admin") is not False,
    )


class KeyRepository:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def create(
        self, *, key_id: str, tenant: str, name: str, prefix: str, salt: str, hash: str, now: datetime,
        admin: bool = True,
    ) -> ApiKey:
        rows = self._store.write(
            "keys/create",
            {"id": key_id, "tenant": tenant, "name": name, "prefix": prefix, "salt": salt, "hash": hash,
             "now": now, "admin": admin},
        )
        return _key(rows[0]["key"])

    def for_auth(self, key_id: str) -> StoredKeyHash | None:
        rows = self._store.read("keys/get_for_auth", {"id": key_id})
        if not rows:
            return None
        row = rows[0]["key"]
        return StoredKeyHash(key=_key(row), salt=str(row["salt"]), hash=str(row["hash"]))

    def list(self, tenant: str | None, *, include_revoked: bool = False, limit: int = 1000) -> list[ApiKey]:
        rows = self._store.read(
            "keys/list", {"tenant": tenant, "include_revoked": include_revoked, "limit": limit}
        )
        return [_key(r["key"]) for r in rows]

    def revoke(self, key_id: str, *, tenant: str | None, now: datetime) -> ApiKey | None:
        rows = self._store.write("keys/revoke", {"id": key_id, "tenant": tenant, "now": now})
        return _key(rows[0]["key"]) if rows else None

    def delete_revoked(self, key_id: str, *, tenant: str | None) -> ApiKey | None:
        """Delete a key if it is revoked; the key as it was (None: no such key). A key that is not revoked comes
        back unrevoked and is kept."""
        rows = self._store.write("keys/delete", {"id": key_id, "tenant": tenant})
        return _key(rows[0]["key"]) if rows else None

    def delete_tenant(self, tenant: str, *, batch: int = 1000, timeout_s: float | None = None) -> int:
        """Delete every key of a tenant, revoked or not, in batches; how many went."""
        deleted = 0
        while removed := int(self._store.write("keys/delete_tenant", {"tenant": tenant, "batch": batch},
                                               timeout_s=timeout_s)[0]["deleted"]):
            deleted += removed
        return deleted
