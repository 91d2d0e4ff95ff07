"""The local Neo4j lifecycle on its own ports and data folder: start, idempotent start, stop, data kept."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from bmam.neo4j_server import NETTY_QUIET_PERIOD_SETTING, LocalNeo4j, Neo4jServerError
from bmam.settings import Settings
from tests.ops_support import TEST_JVM_FLAGS, free_port


@pytest.fixture
def server(settings: Settings, tmp_path: Path) -> LocalNeo4j:
    s = settings.neo4j.model_copy()
    s.uri = None  # this server's own ports: with NEO4J_URI set, bolt_uri named the suite's server (its probe count)
    s.home = tmp_path / "neo4j"
    s.bolt_port = free_port()
    s.http_port = free_port()
    s.heap = "384m"
    s.pagecache = "64m"
    s.jvm_flags = TEST_JVM_FLAGS
    return LocalNeo4j(s)


def _count(bolt: str) -> int:
    with GraphDatabase.driver(bolt, auth=None) as driver:
        return int(driver.execute_query("MATCH (n:LifecycleProbe) RETURN count(n) AS n").records[0]["n"])


def test_start_stop_keeps_data(server: LocalNeo4j) -> None:
    try:
        status = server.start()
        assert status.running and status.pid
        again = server.start()  # idempotent: the same process
        assert again.pid == status.pid
        # settings.neo4j.jvm_flags reach the JVM
        assert all(f.encode() in Path(f"/proc/{status.pid}/cmdline").read_bytes() for f in TEST_JVM_FLAGS)
        with GraphDatabase.driver(status.bolt_uri, auth=None) as driver:
            driver.execute_query("CREATE (:LifecycleProbe {v: 1})")
            keep_alive = {r["name"]: r["value"] for r in driver.execute_query(
                "SHOW SETTINGS YIELD name, value WHERE name STARTS WITH 'server.bolt.connection_keep_alive' "
                "RETURN name, value").records}
        # A silent connection is stale to the driver after keep-alive x probes (20 s, not Neo4j's 120 s), and a
        # long request is checked for its NOOP more often than every keep-alive.
        assert keep_alive.pop("server.bolt.connection_keep_alive_for_requests") == "ALL"
        assert keep_alive.pop("server.bolt.connection_keep_alive") == f"{server.s.bolt_keep_alive_s}s"
        assert keep_alive.pop("server.bolt.connection_keep_alive_probes") == str(server.s.bolt_keep_alive_probes)
        interval = keep_alive.pop("server.bolt.connection_keep_alive_streaming_scheduling_interval")
        assert interval.endswith("s") and 0 < int(interval[:-1]) < server.s.bolt_keep_alive_s
        conf = (server.conf_dir / "neo4j.conf").read_text()
        assert "127.0.0.1" in conf and "dbms.usage_report.enabled=false" in conf
        assert server.stop() is True
        assert not server.status().running
        # The stop does not sit out Netty's quiet period (5 s by default) after the databases have closed: Neo4j
        # refuses to start on a setting it does not know, so the start above proves the name; how long a stop
        # takes is not asserted here (BENCHMARKS-style timing has no place in a test).
        assert f"{NETTY_QUIET_PERIOD_SETTING}=0" in conf
        restarted = server.start()
        assert restarted.pid != status.pid
        assert _count(restarted.bolt_uri) == 1
    finally:
        server.stop()


def test_port_taken_fails_fast(server: LocalNeo4j) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", server.s.bolt_port))
        squatter.listen()
        with pytest.raises(Neo4jServerError, match="already taken"):
            server.start()


def test_missing_java_is_a_clear_error(server: LocalNeo4j) -> None:
    server.s.java = "/nonexistent/java"
    with pytest.raises(Neo4jServerError, match="Java not found"):
        server.start()


def test_server_that_dies_shows_its_log(server: LocalNeo4j) -> None:
    server.s.heap = "1k"  # the JVM refuses to start with this heap
    with pytest.raises(Neo4jServerError, match=r"exited|died"):
        server.start()
