"""Benchmark: what the sync Python client adds to a request. `bmam serve` in its own process answers the
`viewer` query (HTTP, key check, GraphQL; no Neo4j statement, no model) to three clients in alternating
rounds: BmamClient (its transport over http.client, bmam/http_transport.py), the same gql client on gql's
requests transport (the one it replaced, the baseline), and a bare http.client POST (the floor).

    .venv/bin/python bench/client_overhead.py [--requests 300] [--rounds 6]

Needs the configured Neo4j running (the server checks the API key against it once, then caches it).
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gql import Client
from gql.transport.requests import RequestsHTTPTransport

from bench.recall_latency import free_port, pct, serve
from bmam.client import BmamClient, ClientConfig, _request
from bmam.container import Container
from bmam.settings import load_settings

VIEWER = "query { viewer { tenant keyId keyName } }"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)

    container = Container(load_settings())
    container.migrate()
    key = container.keys.create("bench-client", "client-overhead").secret
    port = free_port()
    server = serve(port)
    url = f"http://127.0.0.1:{port}"
    try:
        client = BmamClient(ClientConfig(url=url, api_key=key))
        requests_session = Client(transport=RequestsHTTPTransport(
            url=url + "/graphql", headers={"X-API-Key": key}, timeout=60, retries=0),
            fetch_schema_from_transport=False).connect_sync()
        bare = http.client.HTTPConnection("127.0.0.1", port)
        body = json.dumps({"query": VIEWER}).encode()
        headers = {"Content-Type": "application/json", "X-API-Key": key}

        def bare_post() -> object:
            bare.request("POST", "/graphql", body=body, headers=headers)
            return json.loads(bare.getresponse().read())

        ways: dict[str, Callable[[], object]] = {
            "BmamClient (http.client transport)": client.viewer,
            "gql on requests (before)": lambda: requests_session.execute(_request(VIEWER, None, False)),
            "bare http.client POST": bare_post,
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        for way in ways.values():  # warm up: connections, the server's document and key caches
            for _ in range(30):
                way()
        for r in range(args.rounds):
            for name, way in (list(ways.items()) if r % 2 else list(ways.items())[::-1]):
                for _ in range(args.requests):
                    t = time.perf_counter()
                    way()
                    times[name].append(time.perf_counter() - t)
        client.close()
    finally:
        server.terminate()
        server.wait(60)
    base = pct(times["gql on requests (before)"], 0.5)
    print(f"bench/client_overhead.py: the viewer query, {args.rounds} alternating rounds of {args.requests}")
    print("| client | p50 | p95 | ratio to gql on requests (p50) |\n|---|---|---|---|")
    for name, values in times.items():
        print(f"| {name} | {pct(values, 0.5):.3f} ms | {pct(values, 0.95):.3f} ms | {pct(values, 0.5) / base:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
