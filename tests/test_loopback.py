"""Whether a bind address is loopback only (resolvers/loopback.py): the one decision behind dev mode's API key for
`bmam serve` (resolvers/app.py) and `bmam serve --workers N` (bmam/asgi.py). The workers' path took a literal list
(127.0.0.1, localhost, ::1), so 127.0.0.2 printed a key with one worker and none with two. Pure logic."""

from __future__ import annotations

import pytest

from resolvers.loopback import is_loopback


@pytest.mark.parametrize("host", [
    "127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "::ffff:127.0.0.1", "::ffff:127.0.0.2", "localhost",
    "LocalHost",
])
def test_a_loopback_address_or_localhost_is_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", [
    "0.0.0.0", "::", "::ffff:0.0.0.0",  # every interface
    "192.168.1.20", "10.0.0.1", "::ffff:192.168.1.20", "fe80::1",
    "example.com", "my-laptop", "localhost.example.com", "127.0.0.1.nip.io",  # a name may resolve anywhere
    "",
])
def test_any_other_address_or_a_hostname_is_not(host: str) -> None:
    assert not is_loopback(host)


def test_the_app_and_the_workers_ask_the_same_function() -> None:
    import bmam.asgi
    import resolvers.app

    assert bmam.asgi.is_loopback is resolvers.app.is_loopback is is_loopback
