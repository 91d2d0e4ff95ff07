"""Abuse: over-deep, over-wide and over-long documents, oversized and malformed HTTP, and injection strings
in every string input of every root field. Each is refused with a 4xx / a coded GraphQL error or stored
verbatim; never a 5xx; nothing of anyone is deleted."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from graphql import GraphQLScalarType

from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from tests.graphql_walk import document, replace_at, root_fields, served_schema, string_paths, strings, value

INJECTIONS = (
    "`",
    "x`) DETACH DELETE n //",
    "') MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n //',
    "/* */ MATCH (n) DETACH DELETE n /* ",
    "{{type_label}} $tenant ${user_id} \\' \\\" ;",
    "火锅 🙂 '; DROP CONSTRAINT memory_id; //",
)
# Every string argument of every root field gets these two: a lone backtick, and every breakout above in one
# string (an argument spliced into Cypher fails at the first; stored, it must read back whole). 7 strings an
# argument took 560 calls and 15-39 s; the seven each still go through remember and addTriple below.
ARGUMENT_INJECTIONS = (INJECTIONS[0], " ".join(INJECTIONS))
ACCEPTED_CODES = {"BAD_USER_INPUT", "NOT_FOUND", "CONFLICT", "LIMIT_EXCEEDED"}


def _tenant() -> str:
    return f"test-abuse-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def abuser(api_url: str, make_api_key: Callable[[str], str]) -> Iterator[tuple[BmamClient, str]]:
    tenant = _tenant()
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(tenant)))
    yield c, tenant
    c.close()


def _post(api_url: str, key: str, body: bytes | str, content_type: str = "application/json",
          method: str = "POST", **kw: Any) -> httpx.Response:
    headers = {"X-API-Key": key, "Content-Type": content_type}
    return httpx.request(method, f"{api_url}/graphql", content=body, headers=headers, timeout=60, **kw)


def _refused(resp: httpx.Response, status: int | tuple[int, ...], code: str = "BAD_USER_INPUT") -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    assert resp.status_code in statuses, (resp.status_code, resp.text[:300])
    assert resp.json()["errors"][0]["extensions"]["code"] == code, resp.text[:300]
    assert "Traceback" not in resp.text


def _code(c: BmamClient, doc: str, variables: dict[str, Any] | None = None) -> str:
    with pytest.raises(BmamClientError) as err:
        c.execute(doc, variables)
    return err.value.code


# ----- document limits --------------------------------------------------------------------


def test_measure_counts_after_fragment_expansion() -> None:
    from graphql import GraphQLError, get_introspection_query, parse

    from resolvers.limits import Cost, Limits, measure, violations

    def limit(error: GraphQLError) -> Any:
        assert error.extensions is not None, error
        return error.extensions["limit"]

    assert measure(parse("{ memory { id source { turn } } }")) == Cost(depth=3, aliases=0, selections=4)
    doc = parse("fragment F on Memory { a: id b: text }"
                "{ x: memory { ...F } y: memory { ...F ... on Memory { c: id } } }")
    assert measure(doc) == Cost(depth=2, aliases=7, selections=7)
    assert measure(parse(get_introspection_query())) == Cost()  # introspection is not counted
    many = parse("{ " + " ".join(f"s{i}: __schema {{ types {{ name }} }}" for i in range(16)) + " }")
    assert measure(many).aliases == 16  # but its aliases are
    assert [limit(e) for e in violations(many, Limits())] == ["aliases"]
    chain = "\n".join(f"fragment F{i} on Q {{ ...F{i + 1} ...F{i + 1} }}" for i in range(60))
    huge = measure(parse(chain + "\nfragment F60 on Q { a: x }\n{ ...F0 }"))
    assert huge.aliases == huge.selections == 2**40  # 2**60 really: computed in linear time, capped
    assert [limit(e) for e in violations(parse(chain + "\nfragment F60 on Q { a: x }\n{ ...F0 }"),
                                         Limits())] == ["aliases", "selections"]
    cyclic = parse("fragment A on Q { ...B x } fragment B on Q { ...A y } { ...A }")
    assert measure(cyclic).selections == 2


_COST_SDL = """
type Query { items(first: Int! = 20): [Item!]! one: Item recent(n: Int = null): [Item!]! top(k: Int): [Item!]! }
type Item { id: ID! tags: [String!]! children(limit: Int! = 10): [Item!]! }
"""


def test_page_cost_multiplies_sizes_along_each_path_and_sums_the_paths() -> None:
    from graphql import build_schema, parse

    from resolvers.limits import Limits, page_cost

    schema = build_schema(_COST_SDL)
    limits = Limits(null_sizes={"Query.recent": 7})

    def cost(doc: str, variables: dict[str, Any] | None = None) -> int:
        return page_cost(schema, parse(doc), variables, limits)

    assert cost("{ one { id tags } }") == 0  # no sized list
    assert cost("{ items { id } }") == 20  # the argument's default
    assert cost("{ items(first: 3) { children { id } } }") == 3 + 3 * 10
    assert cost("{ items(first: 3) { children(limit: 2) { children(limit: 5) { id } } } }") == 3 + 3 * 2 + 3 * 2 * 5
    assert cost("{ a: items(first: 3) { id } b: items(first: 4) { id } one { children(limit: 2) { id } } }") == 9
    # Variables: given, the variable's default, not given (the argument's default).
    doc = "query($f: Int! = 4, $g: Int) { items(first: $f) { children(limit: $g) { id } } }"
    assert cost(doc) == 4 + 4 * 10
    assert cost(doc, {"f": 2, "g": 3}) == 2 + 2 * 3
    # Null: the server's default for that field (null_sizes), else the page-size limit.
    assert cost("{ recent { id } }") == cost("{ recent(n: null) { id } }") == 7
    assert cost("query($k: Int) { top(k: $k) { id } }", {"k": None}) == 100
    assert cost("query($k: Int) { top(k: $k) { id } }", {"k": 6.0}) == 6
    # Above the page size the field refuses it (counted as the limit); a non-Int is refused by validation.
    assert cost("{ items(first: 1000000) { children(limit: 1000000) { id } } }") == 100 + 100 * 100
    assert cost('{ items(first: "x") { id } }') == 0
    assert cost("query($f: Int!) { items(first: $f) { id } }", {"f": "x"}) == 0
    assert cost("query($f: Int!) { items(first: $f) { id } }", {"f": True}) == 0
    # Fragments and inline fragments count at every spread, typed by their condition; the worst operation.
    assert cost("fragment C on Item { children(limit: 2) { id } }"
                "{ items(first: 3) { ...C ... on Item { ...C } } }") == 3 * (1 + 2 + 2)
    assert cost("query A { items(first: 2) { id } } query B { items(first: 5) { id } }") == 5
    # Fragments multiplying each other 60 times: measured once each (linear time), capped.
    chain = "\n".join(f"fragment F{i} on Item {{ children(limit: 2) {{ ...F{i + 1} }} ...F{i + 1} }}"
                      for i in range(60))
    assert cost(chain + "\nfragment F60 on Item { id }\n{ items(first: 1) { ...F0 } }") == 2**40
    # Unknown fields and types cost what their selections cost (validation refuses them anyway).
    assert cost("{ nope { items(first: 3) { id } } ... on Nope { items(first: 4) { id } } }") == 0


def test_page_cost_of_the_served_schema() -> None:
    from graphql import parse

    from bmam.settings import Settings
    from resolvers.limits import Limits, cost_violations, page_cost
    from resolvers.schema import schema

    served = schema._schema
    limits = Limits()
    assert limits.max_cost == Settings().limits.max_query_cost == 50_000
    review = ('{ memories(userId: "u", first: 100) { edges { node { associated(first: 50) { memory {'
              " associated(first: 50) { memory { associated(first: 50) { memory { id } } } } } } } } } }")
    assert page_cost(served, parse(review), None, limits) == 100 + 100 * 50 + 100 * 50**2 + 100 * 50**3
    [error] = cost_violations(served, parse(review), None, limits)
    assert error.extensions == {"code": "LIMIT_EXCEEDED", "limit": "cost", "max": 50_000}
    # The deepest document the tests send (depth 10, default sizes) passes: 20 + 200 + 2,000 + 20,000.
    assert page_cost(served, parse(_nested(10)), None, limits) == 22_220
    # recall's and workingMemory's null k / n count as the server's defaults.
    assert page_cost(served, parse('{ recall(userId: "u", query: "q") { memories { memory {'
                                   " associated { strength } } } } }"), None, limits) == 5 + 5 * 10
    assert page_cost(served, parse('{ workingMemory(userId: "u", sessionId: "s") { turns { turn } } }'),
                     None, limits) == 5


def test_page_sizes_multiplied_past_the_cost_are_refused(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    review = ('{ memories(userId: "u", first: 100) { edges { node { associated(first: 50) { memory {'
              " associated(first: 50) { memory { associated(first: 50) { memory { id } } } } } } } } } }")
    with pytest.raises(BmamClientError) as err:
        c.execute(review)
    assert err.value.code == "LIMIT_EXCEEDED"
    assert err.value.errors[0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "cost", "max": 50_000}
    # The same text with other variables: kept after a cheap request (resolvers/documents.py), and still
    # measured with each request's variables.
    doc = ('query Nest($f: Int!, $a: Int!) { memories(userId: "u", first: $f) { edges { node {'
           " associated(first: $a) { memory { associated(first: $a) { strength } } } } } } }")
    assert c.execute(doc, {"f": 2, "a": 2})["memories"]["edges"] == []
    assert _code(c, doc, {"f": 100, "a": 50}) == "LIMIT_EXCEEDED"  # 100 + 5,000 + 250,000
    assert c.execute(doc, {"f": 100, "a": 10})["memories"]["edges"] == []  # 100 + 1,000 + 10,000


def test_the_cost_limit_is_a_setting(settings: object, api_key: str) -> None:
    from starlette.testclient import TestClient

    from bmam.settings import Settings
    from resolvers.app import create_app

    assert isinstance(settings, Settings)
    strict = settings.model_copy(deep=True)
    strict.limits.max_query_cost = 30
    strict.recall.default_k = 3
    container = Container(strict)
    try:
        app = create_app(container, migrate=False, dev_key_enabled=False)
        with TestClient(app) as http:
            def answer(doc: str) -> dict[str, Any]:
                return http.post("/graphql", json={"query": doc}, headers={"X-API-Key": api_key}).json()

            assert answer('{ memories(userId: "u", first: 30) { edges { cursor } } }')["data"]
            refused = answer('{ memories(userId: "u", first: 31) { edges { cursor } } }')
            assert refused["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "cost", "max": 30}
            # recall's k not given counts as the configured default_k: 3 + 3 * 9 = 30 passes, 3 + 3 * 10 not.
            recall = ('query R { recall(userId: "u", query: "tea") { memories { memory {'
                      ' associated(first: %d) { strength } } } } }')
            assert "errors" not in answer(recall % 9)
            assert answer(recall % 10)["errors"][0]["extensions"]["limit"] == "cost"
    finally:
        container.close()


def _nested(levels: int) -> str:
    """memories{edges{node{ associated{memory{ ... }} }}} with exactly `levels` field levels."""
    inner = "id"
    depth = 4  # memories edges node ... id
    chain: list[str] = []
    while depth + 2 <= levels:
        chain.append("associated { memory {")
        depth += 2
    body = " ".join(chain) + f" {inner} " + "} }" * len(chain)
    if depth + 1 == levels:
        body = " ".join(chain) + " associated { strength } " + "} }" * len(chain)
    return f'query {{ memories(userId: "u") {{ edges {{ node {{ {body} }} }} }} }}'


def test_depth_ten_passes_eleven_is_refused(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    assert c.execute(_nested(10))["memories"]["edges"] == []
    assert _code(c, _nested(11)) == "LIMIT_EXCEEDED"
    assert _code(c, _nested(40)) == "LIMIT_EXCEEDED"


def test_aliases_fifteen_pass_sixteen_are_refused(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    fifteen = "{ " + " ".join(f"a{i}: viewer {{ tenant }}" for i in range(15)) + " }"
    assert len(c.execute(fifteen)) == 15
    sixteen = "{ " + " ".join(f"a{i}: viewer {{ tenant }}" for i in range(16)) + " }"
    assert _code(c, sixteen) == "LIMIT_EXCEEDED"


def test_aliases_multiplied_through_fragment_spreads(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    # Three aliases in the fragment, spread under six aliased fields: 6 + 6 * 3 = 24 after expansion.
    doc = ("fragment F on Viewer { t1: tenant t2: tenant t3: tenant }\n{ "
           + " ".join(f"v{i}: viewer {{ ...F }}" for i in range(6)) + " }")
    assert _code(c, doc) == "LIMIT_EXCEEDED"
    # Fragments doubling each other 40 times: counted once each (memoised), refused at once.
    chain = ["fragment F40 on Viewer { a: tenant b: tenant }"]
    chain += [f"fragment F{i} on Viewer {{ ...F{i + 1} x{i}: tenant ...F{i + 1} }}" for i in range(40)]
    doc = "\n".join(chain) + "\n{ viewer { ...F0 } }"
    assert _code(c, doc) == "LIMIT_EXCEEDED"


def test_too_many_tokens_and_selections(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    assert _code(c, "{ viewer { " + "tenant " * 6000 + "} }") == "LIMIT_EXCEEDED"
    # Nested far beyond the parser's recursion (the gql client would refuse to send it: raw HTTP).
    for doc in ('{ memory(userId: "u", id: ' + "[" * 1500 + "]" * 1500 + ") { id } }",
                "{ " + "viewer { " * 1500 + "} " * 1500 + "}"):
        resp = httpx.post(f"{c.config.url}/graphql", json={"query": doc}, headers={"X-API-Key": c.config.api_key or ""})
        assert resp.status_code == 200, resp.text[:200]
        assert resp.json()["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED", resp.text[:300]


def test_an_empty_selection_set_is_refused_before_anything_runs(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    remember = 'mutation { remember(input: {userId: "empty-sel", text: "I keep bees", type: FACTUAL}) { } }'
    assert _code(c, remember) == "BAD_USER_INPUT"
    assert _code(c, "{ viewer { } }") == "BAD_USER_INPUT"
    assert c.memories("empty-sel")["edges"] == []  # nothing was written


def test_field_suggestions_are_never_given(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    for doc in ("{ memoriez(userId: \"u\") { id } }", "{ viewer { tenantt } }",
                'mutation { remember(input: {userId: "u", text: "t", type: FACTUL}) { id } }',
                '{ memories(userIdd: "u") { edges { cursor } } }'):
        with pytest.raises(BmamClientError) as err:
            c.execute(doc)
        assert err.value.code == "BAD_USER_INPUT"
        assert "Did you mean" not in json.dumps(err.value.errors)


# ----- HTTP-level abuse ----------------------------------------------------------------------


def test_oversized_bodies_are_413_before_parsing(api_url: str, abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    ten_mib = "x" * (10 * 1024 * 1024)
    with pytest.raises(BmamClientError) as err:
        c.remember("u", ten_mib)
    assert err.value.code == "LIMIT_EXCEEDED"
    key = c.config.api_key or ""

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while streaming
        yield b'{"query": "{ viewer { tenant } }", "variables": {"x": "'
        for _ in range(10):
            yield b"y" * (1024 * 1024)
        yield b'"}}'

    resp = httpx.post(f"{api_url}/graphql", content=chunks(), timeout=60,
                      headers={"X-API-Key": key, "Content-Type": "application/json"})
    _refused(resp, 413, "LIMIT_EXCEEDED")
    # Just under the limit is parsed (and the text limit, 32 KiB, answers instead).
    with pytest.raises(BmamClientError) as err:
        c.remember("u", "z" * (1024 * 1024 - 4000))
    assert err.value.code == "LIMIT_EXCEEDED" and "32768" in err.value.message


def test_malformed_http_is_4xx(api_url: str, abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    key = c.config.api_key or ""
    ok = json.dumps({"query": "{ viewer { tenant } }"})
    assert _post(api_url, key, ok).status_code == 200
    _refused(_post(api_url, key, "[" + ok + "," + ok + "]"), 400)  # a JSON batch
    _refused(_post(api_url, key, ok, content_type="text/plain"), 415)
    _refused(_post(api_url, key, "query=%7B%20viewer%20%7B%20tenant%20%7D%20%7D",
                   content_type="application/x-www-form-urlencoded"), 415)
    _refused(_post(api_url, key, b"--b\r\nContent-Disposition: form-data; name=query\r\n\r\n{ viewer }\r\n--b--",
                   content_type="multipart/form-data; boundary=b"), 415)
    _refused(_post(api_url, key, b'{"query": "{ viewer { tenant } }", "x": "\xff\xfe\xc3\x28"}'), 400)
    _refused(_post(api_url, key, b'{"query": "{ viewer { tenant } }", "x": "\xed\xa0\x80"}'), 400)  # CESU surrogate
    _refused(_post(api_url, key, '{"query": "{ viewer '), 400)
    _refused(_post(api_url, key, json.dumps({"query": "{ viewer { tenant } }", "variables": [1, 2]})), 400)
    _refused(_post(api_url, key, json.dumps({"query": "{ viewer { tenant } }", "variables": "x"})), 400)
    _refused(_post(api_url, key, json.dumps({"query": 42})), 400)
    _refused(_post(api_url, key, json.dumps({"variables": {}})), 400)
    _refused(_post(api_url, key, "[" * 100_000 + "]" * 100_000), 400)
    _refused(_post(api_url, key, '{"query": "{ viewer { tenant } }", "variables": {"k": 1' + "0" * 5000 + "}}"), 400)
    _refused(_post(api_url, key, ok, method="PUT"), 405)
    _refused(_post(api_url, key, ok, method="DELETE"), 405)
    mutation = 'mutation { remember(input: {userId: "u", text: "via GET", type: FACTUAL}) { id } }'
    resp = httpx.get(f"{api_url}/graphql", params={"query": mutation}, headers={"X-API-Key": key})
    _refused(resp, (400, 405))
    resp = httpx.get(f"{api_url}/graphql", params={"query": "{ viewer { tenant } }", "variables": "[1]"},
                     headers={"X-API-Key": key})
    _refused(resp, 400)
    resp = httpx.get(f"{api_url}/graphql?query=%7B%20viewer%20%7B%20tenant%20%7D%20%7D%ff", headers={"X-API-Key": key})
    _refused(resp, 400)
    resp = httpx.get(f"{api_url}/graphql", params={"query": "{ viewer { tenant } }"}, headers={"X-API-Key": key})
    assert resp.status_code == 200 and resp.json()["data"]["viewer"]["tenant"]
    assert c.memories("u")["edges"] == []  # the GET mutation wrote nothing


def test_nul_and_lone_surrogates_are_bad_input(abuser: tuple[BmamClient, str]) -> None:
    c, _ = abuser
    for text in ("a\x00b", "\ud800", "x\udfffy", "\x00"):
        with pytest.raises(BmamClientError) as err:
            c.remember("u", text)
        assert err.value.code == "BAD_USER_INPUT"
    for user in ("a\x00b", "\ud800"):
        with pytest.raises(BmamClientError) as err:
            c.remember(user, "fine text")
        assert err.value.code == "BAD_USER_INPUT"
    assert c.memories("u")["edges"] == []


# ----- injection strings in every string input -------------------------------------------------


def _valid_scalar(memory_id: str) -> Callable[[str, GraphQLScalarType], Any]:
    def scalar(name: str, type_: GraphQLScalarType) -> Any:
        lowered = name.lower()
        if type_.name == "Int":
            return 1
        if type_.name == "Float":
            return 0.5
        if type_.name == "Boolean":
            return lowered == "dryrun"  # never confirm anything destructive with valid ids
        if type_.name == "DateTime":
            return "2026-11-30T00:00:00+00:00"
        if lowered == "userid":
            return "mallory"
        if lowered in ("sessionid", "deviceid"):
            return "s1"
        if lowered == "speaker":
            return "user"
        if type_.name == "ID" or lowered.endswith("id") or lowered in ("memorya", "memoryb", "winner"):
            return memory_id
        if lowered == "after":
            return None
        return "a plain sentence about tea"

    return scalar


def test_injection_strings_are_refused_or_stored_verbatim(
    abuser: tuple[BmamClient, str], container: Container, make_api_key: Callable[[str], str], api_url: str
) -> None:
    c, tenant = abuser
    # A canary app whose nodes must all survive, and this app's own seed.
    canary_tenant = _tenant()
    canary = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(canary_tenant)))
    canary_memory = canary.remember("mallory", "canary memory", "FACTUAL")
    canary.add_triple("mallory", canary_memory["id"], "canary", "is", "alive")
    canary_nodes = container.erasure.tenant_user_nodes(canary_tenant)
    seed = c.remember("mallory", "seed memory about tea", "FACTUAL")
    other = c.remember("mallory", "another seed", "FACTUAL")
    seed_nodes = container.erasure.tenant_user_nodes(tenant)

    schema = served_schema(c)
    calls: list[tuple[str, tuple[Any, ...], str, str, dict[str, Any]]] = []
    for kind, name, f in root_fields(schema):
        base = {n: value(n, arg.type, _valid_scalar(seed["id"])) for n, arg in f.args.items()}
        base = {k: v for k, v in base.items() if v is not None}
        doc = document(kind, name, f, depth=2)
        for path in string_paths(f):
            if path[0] in base:
                calls += [(name, tuple(path), injection, doc, replace_at(base, path, injection))
                          for injection in ARGUMENT_INJECTIONS]

    # Four clients side by side (one each: a client is not shared between threads); the calls are independent.
    local = threading.local()
    clients: list[BmamClient] = []

    def call(name: str, path: tuple[Any, ...], injection: str, doc: str, variables: dict[str, Any]) -> bool:
        if not hasattr(local, "client"):
            local.client = BmamClient(ClientConfig(url=api_url, api_key=c.config.api_key))
            clients.append(local.client)
        try:
            answer = local.client.execute(doc, variables)
        except BmamClientError as exc:
            assert exc.code in ACCEPTED_CODES, (name, path, injection, exc)
            return False
        # Stored (or echoed) text is the injection itself (surrounding blanks trimmed, as for any text), never a
        # mangled form.
        for s in strings(answer):
            if injection[:6] in s and injection.strip() not in s:
                pytest.fail(f"{name} {path}: {s!r} is not {injection!r} verbatim")
        return True

    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            stored = sum(future.result() for future in [pool.submit(call, *job) for job in calls])
    finally:
        for client in clients:
            client.close()
    assert len(calls) >= 150 and stored > 0

    # What remember and addTriple stored reads back verbatim, predicates included.
    for injection in INJECTIONS:
        m = c.remember("mallory", injection, "FACTUAL")
        got = c.memory("mallory", m["id"])
        assert got is not None and got["text"] == injection.strip()
        c.add_triple("mallory", m["id"], injection, injection, injection)
        triples = c.triples("mallory", m["id"])
        assert [(x["subject"]["name"], x["predicate"], x["object"]["name"]) for x in triples] == [
            (injection.strip(),) * 3
        ]

    # Nothing was deleted: the canary app is whole, this app's seed is still there.
    assert container.erasure.tenant_user_nodes(canary_tenant) == canary_nodes
    canary_got = canary.memory("mallory", canary_memory["id"])
    assert canary_got is not None and canary_got["text"] == "canary memory"
    assert c.memory("mallory", seed["id"]) is not None and c.memory("mallory", other["id"]) is not None
    assert container.erasure.tenant_user_nodes(tenant) >= seed_nodes
    canary.close()
