"""Whether the address the server binds is loopback only: dev mode creates and prints an API key only then
(resolvers/app.py for `bmam serve`, bmam/asgi.py for `bmam serve --workers N`). Kept apart from the app, so the
CLI decides without importing it."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1, an IPv4 address mapped into IPv6 (::ffff:127.0.0.1; Python before 3.13 does not count
    it) and the name localhost; not 0.0.0.0 or :: (every interface), nor any other name (it may resolve
    anywhere)."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
