"""API keys: create (the secret is shown once), list, revoke, and authenticate a presented key.

A key reads `bmam_<id>_<secret>`: the id (16 hex) finds the stored record, the secret (32 random bytes,
url-safe base64) is checked against HMAC-SHA256(salt, secret) with a per-key random salt. Only the
salt and the hash are stored, so a leaked database yields no usable key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bmam import validate
from bmam.clock import Clock
from graph.errors import BadInput, Conflict, Forbidden, NotFound, Unauthenticated
from graph.keys import KeyRepository
from graph.model import ApiKey

KEY_PREFIX = "bmam"
_KEY = re.compile(r"^bmam_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")
MAX_NAME_CHARS = 100
_CACHE_MAX = 10_000

UNAUTHENTICATED_MESSAGE = "a valid API key is required (header X-API-Key or Authorization: Bearer)"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the tenant (app) a verified key belongs to, and whether the key may manage its keys."""

    tenant: str
    key_id: str
    key_name: str
    admin: bool = False


@dataclass(frozen=True, slots=True)
class CreatedKey:
    key: ApiKey
    secret: str  # the whole key; shown once, never stored


def hash_secret(salt_hex: str, secret: str) -> str:
    return hmac.new(bytes.fromhex(salt_hex), secret.encode("ascii"), hashlib.sha256).hexdigest()


def parse_key(raw: str) -> tuple[str, str] | None:
    """(key id, secret) of a well-formed key, else None."""
    match = _KEY.match(raw.strip())
    return (match.group(1), match.group(2)) if match else None


class KeyUseCases:
    def __init__(
        self,
        *,
        repository: KeyRepository,
        clock: Clock,
        cache_s: float = 10.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._repo = repository
        self._clock = clock
        self._cache_s = cache_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        # sha256(presented key) -> (principal, trusted until); never holds the key itself.
        self._cache: dict[str, tuple[Principal, float]] = {}
        # key id -> (unrevoked?, known until): what an open subscription asks before each event.
        self._standing: dict[str, tuple[bool, float]] = {}

    def create(self, tenant: str, name: str | None = None, *, admin: bool = True) -> CreatedKey:
        """A new key of the tenant. admin: it may manage the tenant's keys (the operator's CLI makes such keys by
        default); an app key (False) may do everything else."""
        tenant = validate.identifier(tenant, field="tenant")
        name = _name(name)
        key_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        key = self._repo.create(
            key_id=key_id, tenant=tenant, name=name, prefix=f"{KEY_PREFIX}_{key_id}", salt=salt,
            hash=hash_secret(salt, secret), now=self._clock.now(), admin=admin,
        )
        return CreatedKey(key=key, secret=f"{KEY_PREFIX}_{key_id}_{secret}")

    # ----- through the API: what a caller's key may do with its tenant's keys -----------------------------

    def create_by(self, caller: Principal, name: str | None = None, *, admin: bool = False) -> CreatedKey:
        """createApiKey: an admin key makes another key of its tenant (an app key unless admin)."""
        require_admin(caller, "create API keys")
        return self.create(caller.tenant, name, admin=admin)

    def list_by(self, caller: Principal, *, include_revoked: bool = False) -> list[ApiKey]:
        """apiKeys: an admin key lists its tenant's keys."""
        require_admin(caller, "list the app's API keys")
        return self.list(caller.tenant, include_revoked=include_revoked)

    def revoke_by(self, caller: Principal, key_id: str) -> ApiKey:
        """revokeApiKey: an admin key revokes any key of its tenant; any key may revoke itself (a leak noticed)."""
        if key_id.strip() != caller.key_id:
            require_admin(caller, "revoke another API key")
        return self.revoke(key_id, tenant=caller.tenant)

    def list(self, tenant: str | None, *, include_revoked: bool = False) -> list[ApiKey]:
        if tenant is not None:
            tenant = validate.identifier(tenant, field="tenant")
        return self._repo.list(tenant, include_revoked=include_revoked)

    def revoke(self, key_id: str, *, tenant: str | None) -> ApiKey:
        """Revoke a key; with a tenant, only that tenant's key (another tenant's id is NOT_FOUND). An id that
        is not one (16 hex digits) is BAD_USER_INPUT, and the message never repeats what was given: it may be
        the whole key, secret included."""
        key_id, tenant = _key_of(key_id, tenant)
        revoked = self._repo.revoke(key_id, tenant=tenant, now=self._clock.now())
        if revoked is None:
            raise NotFound(f"API key {key_id} not found")
        self._invalidate(key_id)
        return revoked

    def delete(self, key_id: str, *, tenant: str | None) -> ApiKey:
        """Delete a revoked key for good (`bmam keys delete`): its node goes, so it no longer lists with
        --revoked. A key not revoked yet is refused (CONFLICT) and kept: revoke it first, so no key still in use
        vanishes by a mistyped id. With a tenant, only that tenant's key (another tenant's id is NOT_FOUND); the id
        is checked as revoke checks it. Returns the key as it was."""
        key_id, tenant = _key_of(key_id, tenant)
        deleted = self._repo.delete_revoked(key_id, tenant=tenant)
        if deleted is None:
            raise NotFound(f"API key {key_id} not found")
        if deleted.revoked_at is None:
            raise Conflict(f"API key {key_id} is not revoked: only a revoked key may be deleted (revoke it first: "
                           f"`bmam keys revoke {key_id}`)", field="id")
        self._invalidate(key_id)
        return deleted

    def _invalidate(self, key_id: str) -> None:
        """A revoked or deleted key: this process trusts it no more, at once (others within cache_s)."""
        with self._lock:
            self._cache = {k: v for k, v in self._cache.items() if v[0].key_id != key_id}
            self._standing[key_id] = (False, float("inf"))  # a revoke is for good

    def still_valid(self, key_id: str) -> bool:
        """Whether a key verified earlier is still unrevoked: an open connection (a subscription) asks before
        each event. A revoke in this process is seen at once, one in another within cache_s."""
        now = self._monotonic()
        with self._lock:
            hit = self._standing.get(key_id)
        if hit is not None and hit[1] > now:
            return hit[0]
        stored = self._repo.for_auth(key_id)
        valid = stored is not None and stored.key.revoked_at is None
        with self._lock:
            if len(self._standing) >= _CACHE_MAX:
                self._standing.clear()
            self._standing[key_id] = (valid, float("inf") if not valid else now + self._cache_s)
        return valid

    def cached(self, presented: str) -> Principal | None:
        """The principal of a key verified moments ago (no I/O), else None."""
        digest = hashlib.sha256(presented.encode("utf-8", "surrogatepass")).hexdigest()
        with self._lock:
            hit = self._cache.get(digest)
        return hit[0] if hit and hit[1] > self._monotonic() else None

    def authenticate(self, presented: str | None) -> Principal:
        """The principal of a valid, unrevoked key; Unauthenticated otherwise (StoreUnavailable when
        Neo4j cannot be asked)."""
        if not presented:
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        digest = hashlib.sha256(presented.encode("utf-8", "surrogatepass")).hexdigest()
        now = self._monotonic()
        with self._lock:
            cached = self._cache.get(digest)
        if cached and cached[1] > now:
            return cached[0]
        parsed = parse_key(presented)
        if parsed is None:
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        key_id, secret = parsed
        stored = self._repo.for_auth(key_id)
        if stored is None or stored.key.revoked_at is not None:
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        if not hmac.compare_digest(hash_secret(stored.salt, secret), stored.hash):
            raise Unauthenticated(UNAUTHENTICATED_MESSAGE)
        principal = Principal(tenant=stored.key.tenant, key_id=stored.key.id, key_name=stored.key.name,
                              admin=stored.key.admin)
        with self._lock:
            if len(self._cache) >= _CACHE_MAX:
                self._cache.clear()
            self._cache[digest] = (principal, now + self._cache_s)
        return principal


def _key_of(key_id: str, tenant: str | None) -> tuple[str, str | None]:
    """(key id, tenant) of a revoke or delete, checked. An id that is not one (16 hex digits) is BAD_USER_INPUT,
    and the message never repeats what was given: it may be the whole key, secret included."""
    if tenant is not None:
        tenant = validate.identifier(tenant, field="tenant")
    key_id = key_id.strip()
    if not _KEY_ID.match(key_id):
        what = "a whole API key, secret included" if parse_key(key_id) else "not an API key id"
        raise BadInput(f"id: that is {what}; give the key's id, the 16 hex digits after 'bmam_' (apiKeys, "
                       "`bmam keys list`)", field="id")
    return key_id, tenant


def require_admin(caller: Principal, what: str) -> None:
    """FORBIDDEN unless the caller's key is an admin key of its app (the key operations, forgetTenant)."""
    if not caller.admin:
        raise Forbidden(f"this API key is an app key: only an admin key may {what} (`bmam keys create` makes "
                        "one; createApiKey(admin: true) from an admin key)")


def _name(name: str | None) -> str:
    """A key's label: none when left out; given, it is an identifier (a blank one is refused, not stored as "")."""
    if name is None:
        return ""
    if not name.strip():
        raise BadInput("name must not be blank (leave it out for a key without a name)", field="name")
    if len(name) > MAX_NAME_CHARS:
        raise BadInput(f"name is longer than {MAX_NAME_CHARS} characters", field="name")
    return validate.identifier(name, field="name")


def dev_key(keys: KeyUseCases, path: Path, tenant: str) -> tuple[str, bool]:
    """Dev mode: the key saved at `path` (mode 0600) when it is still valid for `tenant`, else a new key
    for it, saved there. Returns (key, created)."""
    if path.is_file():
        saved = path.read_text(encoding="utf-8").strip()
        try:
            if keys.authenticate(saved).tenant == tenant:
                return saved, False
        except Unauthenticated:
            pass
    created = keys.create(tenant, "dev")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(created.secret + "\n")
    return created.secret, True
