"""Knowledge back in through the API (real Neo4j, the real app served by uvicorn): an export taken with
GET /export imported into another user with POST /import/{userId}.{ext}, with the GraphQL mutation importRdf and
with `bmam remote import`; the target's memories equal the source's, a second import creates nothing, a dry run
writes nothing, a malformed file is BAD_USER_INPUT naming its line, the size limits (413 / LIMIT_EXCEEDED), a full
core (CONFLICT), and tenancy (another app's key imports into its own user and sees nothing of this one)."""

from __future__ import annotations

import http.server
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from typer.testing import CliRunner

from bmam.cli import app as cli_app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import NotFound
from graph.model import Tier
from tests.knowledge_fixture import USER, Conversation, load
from tests.ops_support import served

runner = CliRunner()

REPORT_FIELDS = ("source { tenant userId } target { tenant userId } counts { kind created existing } created"
                 " triples relationships ignored dryRun capacity { memoryId fromTier toTier deleted reason }"
                 " hooksRun hooksLeft")
IMPORT = ("mutation($u: String!, $d: String!, $f: RdfFormat!, $s: String, $dry: Boolean!) {"
          f" importRdf(userId: $u, data: $d, format: $f, sourceUserId: $s, dryRun: $dry) {{ {REPORT_FIELDS} }} }}")


def _fresh() -> str:
    return f"test-imp-{uuid.uuid4().hex[:10]}"


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def source(container: Container) -> Conversation:
    """The knowledge fixture's conversation (Chinese and English memories, a core one, triples, a conflict held
    for review, a superseded memory) under its own tenant."""
    return load(container, _fresh())


@pytest.fixture(scope="module")
def key(container: Container, source: Conversation) -> str:
    return container.keys.create(source.tenant, "pytest").secret


def _memories(container: Container, tenant: str, user: str) -> list[tuple[str, str, str, bool, bool]]:
    """A user's memories, history included: (text, type, tier, locked, superseded), sorted."""
    page = container.memories.page(tenant, user, first=100, include_history=True)
    assert page.next_cursor is None
    return sorted((m.text, m.type.value, m.tier.value, m.locked, m.valid_to is not None) for m in page.items)


def _stored_nothing(container: Container, tenant: str, user: str) -> bool:
    """Not even the user's node: the export of the user is NOT_FOUND."""
    try:
        container.export.chunks(tenant, user)
    except NotFound:
        return True
    return False


def _export(api_url: str, key: str, ext: str) -> bytes:
    got = requests.get(f"{api_url}/export/{USER}.{ext}", headers={"X-API-Key": key}, timeout=60)
    assert got.status_code == 200, got.text
    return got.content


def _post(api_url: str, key: str | None, user: str, ext: str, data: Any, **params: str) -> requests.Response:
    headers = {"X-API-Key": key} if key else {}
    return requests.post(f"{api_url}/import/{user}.{ext}", data=data, params=params, headers=headers, timeout=120)


def _code(resp: requests.Response) -> str:
    return str(resp.json()["errors"][0]["extensions"]["code"])


def _message(resp: requests.Response) -> str:
    return str(resp.json()["errors"][0]["message"])


# ----- HTTP: POST /import/{userId}.{ext} ---------------------------------------------------------------------


def test_http_import_of_an_http_export_copies_the_user_and_again_creates_nothing(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    data = _export(api_url, key, "ttl")
    originals = _memories(container, source.tenant, USER)
    target = _user()

    dry = _post(api_url, key, target, "ttl", data, dryRun="true")
    assert dry.status_code == 200, dry.text
    assert dry.json()["dryRun"] is True and _counts(dry.json())["Memory"] == (len(originals), 0)
    assert _stored_nothing(container, source.tenant, target)

    first = _post(api_url, key, target, "ttl", data)
    assert first.status_code == 200, first.text
    report = first.json()
    assert report["target"] == {"tenant": source.tenant, "userId": target}
    assert report["source"] == {"tenant": source.tenant, "userId": USER}
    assert report["dryRun"] is False and report["triples"] > 0 and report["relationships"] > 0
    # the dry run counted what the import then wrote
    assert report["counts"] == dry.json()["counts"] and report["created"] == dry.json()["created"] > len(originals)
    assert _counts(report)["Memory"] == (len(originals), 0)
    assert report["capacity"] == [] and report["hooksRun"] == 0 and report["hooksLeft"] == 0
    assert _memories(container, source.tenant, target) == originals

    again = _post(api_url, key, target, "ttl", data)
    assert again.status_code == 200, again.text
    assert again.json()["created"] == 0 and _counts(again.json())["Memory"] == (0, len(originals))
    assert _memories(container, source.tenant, target) == originals


def test_http_import_streams_a_chunked_body_and_takes_every_extension(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    originals = _memories(container, source.tenant, USER)
    for ext in ("nt", "jsonld", "rdf"):
        data = _export(api_url, key, ext)
        target = _user()
        pieces = (data[i:i + 4096] for i in range(0, len(data), 4096))  # no Content-Length: chunked
        resp = _post(api_url, key, target, ext, pieces)
        assert resp.status_code == 200, (ext, resp.text)
        assert _memories(container, source.tenant, target) == originals, ext


def test_http_import_refuses_a_malformed_file_with_its_line_and_writes_nothing(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    lines = _export(api_url, key, "nt").decode().splitlines(keepends=True)
    lines[2] = '<https://bmam.dev/x> <https://bmam.dev/y> "never closed .\n'
    target = _user()
    resp = _post(api_url, key, target, "nt", "".join(lines).encode())
    assert resp.status_code == 400 and _code(resp) == "BAD_USER_INPUT"
    assert "line 3" in _message(resp), _message(resp)
    # a value the model cannot hold: the node and the property are named
    bad = _export(api_url, key, "nt").replace(b'#locked> "true"^^', b'#locked> "maybe"^^', 1)
    assert bad != _export(api_url, key, "nt")
    value = _post(api_url, key, target, "nt", bad)
    assert value.status_code == 400 and _code(value) == "BAD_USER_INPUT", value.text
    assert f"/memory/{source.core_id}: locked" in _message(value) and "'maybe'" in _message(value)
    assert _stored_nothing(container, source.tenant, target)


def test_http_import_refuses_before_reading_what_it_cannot_take(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    data = _export(api_url, key, "ttl")
    target = _user()
    no_key = _post(api_url, None, target, "ttl", data)
    assert no_key.status_code == 401 and _code(no_key) == "UNAUTHENTICATED"
    assert no_key.headers["www-authenticate"].startswith("Bearer")
    assert _post(api_url, "bmam_0123456789abcdef_nope", target, "ttl", data).status_code == 401
    bearer = requests.post(f"{api_url}/import/{target}.ttl", data=data, params={"dryRun": "true"}, timeout=60,
                           headers={"Authorization": f"Bearer {key}"})
    assert bearer.status_code == 200 and bearer.json()["dryRun"] is True
    for ext, why in (("graphml", "unknown RDF format"), ("csv", "unknown RDF format")):
        resp = _post(api_url, key, target, ext, data)
        assert resp.status_code == 400 and why in _message(resp), resp.text
    # a typo must not turn a dry run into an import
    typo = _post(api_url, key, target, "ttl", data, dry_run="true")
    assert typo.status_code == 400 and "dry_run" in _message(typo)
    assert _post(api_url, key, target, "ttl", data, dryRun="perhaps").status_code == 400
    unknown_source = _post(api_url, key, target, "ttl", data, sourceUserId="nobody")
    assert unknown_source.status_code == 400 and "no user 'nobody'" in _message(unknown_source)
    assert requests.get(f"{api_url}/import/{target}.ttl", headers={"X-API-Key": key}, timeout=60).status_code == 405
    assert _stored_nothing(container, source.tenant, target)


# ----- GraphQL: importRdf --------------------------------------------------------------------------------------


def _import(c: BmamClient, user: str, data: str, fmt: str = "TURTLE", *, source_user: str | None = None,
            dry_run: bool = False) -> dict[str, Any]:
    return c.execute(IMPORT, {"u": user, "d": data, "f": fmt, "s": source_user, "dry": dry_run})["importRdf"]


def _counts(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {c["kind"]: (c["created"], c["existing"]) for c in report["counts"]}


def test_a_method_or_parameter_the_routes_do_not_take_answers_in_their_json_error_shape(key: str,
                                                                                      api_url: str) -> None:
    """GET /import/u.ttl answered a text/plain 405 "Method Not Allowed"; GET /export/u.ttl?foo=1 ignored foo, where
    POST /import refuses a parameter it does not know."""
    headers = {"X-API-Key": key}
    for method, path, allow in (("GET", "/import/u.ttl", "POST"), ("PUT", "/import/u.ttl", "POST"),
                                ("POST", "/export/u.ttl", "GET"), ("DELETE", "/export/u.ttl", "GET")):
        got = requests.request(method, f"{api_url}{path}", headers=headers, timeout=30)
        assert (got.status_code, got.headers["allow"]) == (405, allow), (method, path, got.text)
        assert got.headers["content-type"] == "application/json" and _code(got) == "BAD_USER_INPUT"
    extra = requests.get(f"{api_url}/export/{USER}.ttl", params={"foo": "1"}, headers=headers, timeout=30)
    assert extra.status_code == 400 and _code(extra) == "BAD_USER_INPUT" and "'foo'" in _message(extra)
    assert requests.get(f"{api_url}/export/{USER}.ttl", headers=headers, timeout=30).status_code == 200


def test_graphql_import_copies_the_user_and_again_creates_nothing(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    originals = _memories(container, source.tenant, USER)
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    try:
        data = c.export_rdf(USER, "N_TRIPLES")
        target = _user()
        dry = _import(c, target, data, "N_TRIPLES", dry_run=True)
        assert dry["dryRun"] is True and _counts(dry)["Memory"] == (len(originals), 0)
        assert _stored_nothing(container, source.tenant, target)

        report = _import(c, target, data, "N_TRIPLES")
        assert report["target"] == {"tenant": source.tenant, "userId": target}
        assert report["source"] == {"tenant": source.tenant, "userId": USER}
        assert report["dryRun"] is False and report["created"] == dry["created"] > len(originals)
        assert _counts(report) == _counts(dry)
        assert report["triples"] > 0 and report["relationships"] > 0 and report["ignored"] == 0
        assert report["capacity"] == [] and report["hooksRun"] == 0 and report["hooksLeft"] == 0  # nothing else
        assert _memories(container, source.tenant, target) == originals

        again = _import(c, target, data, "N_TRIPLES")
        assert again["created"] == 0 and _counts(again)["Memory"] == (0, len(originals))
        assert _memories(container, source.tenant, target) == originals
    finally:
        c.close()


def _as_json(report: dict[str, Any], *, target: str | None = None) -> str:
    """A report as its JSON text (equal only with the same fields, in the same order, of the same types: true is not
    1), its target user renamed to `target` when given."""
    if target is not None:
        report = {**report, "target": {**report["target"], "userId": target}}
    return json.dumps(report, ensure_ascii=False)


def test_the_upload_and_the_client_answer_the_mutations_report(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    """POST /import (and so BmamClient.import_rdf and `bmam remote import`) answered created as a dict per kind,
    existing, dry_run, hooks_run, hooks_left and source.user_id, where importRdf answers created as an Int, counts,
    dryRun, hooksRun, hooksLeft and source.userId: code written against one broke on the other. The same import
    through either is now the same JSON, a dry run, a first import (hooks run: the users hold a memory of their
    own) and an import again."""
    data = _export(api_url, key, "ttl")
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    try:
        target = _user()
        dry = _import(c, target, data.decode(), dry_run=True)
        by_route = _post(api_url, key, target, "ttl", data, dryRun="true")
        assert by_route.status_code == 200, by_route.text
        assert _as_json(by_route.json()) == _as_json(c.import_rdf(target, data, dry_run=True)) == _as_json(dry)
        assert dry["dryRun"] is True and isinstance(dry["created"], int) and dry["created"] > 0
        assert _stored_nothing(container, source.tenant, target)

        twins = (_user(), _user())  # one imported into through each way
        for user in twins:
            container.memories.remember(source.tenant, RememberRequest(user_id=user, text="I keep bees",
                                                                       type="FACTUAL"))
        first = c.import_rdf(twins[0], data)
        assert first["hooksRun"] > 0 and first["capacity"] == [] and first["created"] == dry["created"]
        assert _as_json(first, target="x") == _as_json(_import(c, twins[1], data.decode()), target="x")
        again = _post(api_url, key, twins[0], "ttl", data).json()
        assert again["created"] == 0
        assert _as_json(again) == _as_json(_import(c, twins[0], data.decode()))
    finally:
        c.close()


def test_graphql_import_refuses_a_malformed_file_with_its_line_and_writes_nothing(
        container: Container, source: Conversation, key: str, api_url: str) -> None:
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    try:
        lines = c.export_rdf(USER, "TURTLE").splitlines(keepends=True)
        lines[4] = 'x:never "closed .\n'
        target = _user()
        with pytest.raises(BmamClientError) as err:
            _import(c, target, "".join(lines))
        assert err.value.code == "BAD_USER_INPUT" and "line 5" in err.value.message, err.value.message
        assert "Traceback" not in err.value.message
        with pytest.raises(BmamClientError) as surrogate:  # JSON can carry a lone surrogate; no file holds one
            _import(c, target, "\ud800")
        assert surrogate.value.code == "BAD_USER_INPUT"
        with pytest.raises(BmamClientError) as missing:
            _import(c, target, c.export_rdf(USER, "TURTLE"), source_user="nobody")
        assert missing.value.code == "BAD_USER_INPUT" and "no user 'nobody'" in missing.value.message
        assert _stored_nothing(container, source.tenant, target)
    finally:
        c.close()


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on 127.0.0.1 recording the paths asked of it: (its url, the paths)."""
    asked: list[str] = []

    class Record(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Record)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_a_jsonld_context_given_by_reference_is_refused_and_never_fetched(
        container: Container, source: Conversation, key: str, api_url: str,
        listener: tuple[str, list[str]]) -> None:
    """rdflib would fetch a referenced context (a URL, or a file: a request made by the server for whoever
    imports); refused before parsing, through GraphQL (a dry run too) and the upload, nothing asked, nothing
    written."""
    url, asked = listener
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    target = _user()
    try:
        for context in (f"{url}/ctx", [{"ex": "http://x/"}, "file:///etc/hostname"], {"@import": f"{url}/imp"}):
            document = json.dumps({"@context": context, "@id": "http://x/a"})
            for dry_run in (True, False):
                with pytest.raises(BmamClientError) as err:
                    _import(c, target, document, "JSON_LD", dry_run=dry_run)
                assert err.value.code == "BAD_USER_INPUT" and "not fetched" in err.value.message, err.value.message
            upload = _post(api_url, key, target, "jsonld", document.encode(), dryRun="true")
            assert upload.status_code == 400 and _code(upload) == "BAD_USER_INPUT", upload.text
        assert asked == []
        assert _stored_nothing(container, source.tenant, target)
    finally:
        c.close()


def test_an_rdf_xml_doctype_is_refused_before_parsing(container: Container, source: Conversation, key: str,
                                                       api_url: str) -> None:
    """Entities nested in a DTD (a few KB) cost ~50 s of parsing before expat's amplification limit stopped them, the
    server busy and its shutdown held meanwhile; any DOCTYPE or entity declaration is refused first, nothing written."""
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {n} "{("&" + p + ";") * 10}">' for p, n in zip("abcde", "bcdef", strict=True))
    document = ('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [' + entities + ']>\n<rdf:RDF xmlns:rdf='
                '"http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x/"><rdf:Description rdf:about='
                '"http://x/a"><ex:p>&f;</ex:p></rdf:Description></rdf:RDF>')
    target = _user()
    upload = _post(api_url, key, target, "rdf", document.encode(), dryRun="true")
    assert upload.status_code == 400 and _code(upload) == "BAD_USER_INPUT" and "DOCTYPE" in _message(upload)
    c = BmamClient(ClientConfig(url=api_url, api_key=key))
    try:
        with pytest.raises(BmamClientError) as err:
            _import(c, target, document, "RDF_XML")
        assert err.value.code == "BAD_USER_INPUT" and "DOCTYPE" in err.value.message
    finally:
        c.close()
    assert _stored_nothing(container, source.tenant, target)


# ----- limits and a full core: a server of its own with small settings -----------------------------------------

SMALL_UPLOAD = 16 * 1024  # export.import_max_bytes of the server below
SMALL_GRAPHQL = 2048  # export.graphql_import_max_bytes


@pytest.fixture(scope="module")
def small_server(container: Container) -> Iterator[tuple[str, str, str]]:
    """The real app on the same Neo4j with a container of its own (the app closes it when it stops), taking
    uploads up to SMALL_UPLOAD bytes, importRdf files up to SMALL_GRAPHQL bytes, and one core memory per user:
    (url, key, tenant)."""
    from resolvers.app import create_app

    base = container.settings
    small = base.model_copy(update={
        "export": base.export.model_copy(update={"import_max_bytes": SMALL_UPLOAD,
                                                 "graphql_import_max_bytes": SMALL_GRAPHQL}),
        "tiers": base.tiers.model_copy(update={"core_capacity": 1})})
    own = Container(small)
    tenant = _fresh()
    key = own.keys.create(tenant, "pytest").secret
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        yield url, key, tenant


def _one_core_memory(container: Container, tenant: str) -> tuple[str, bytes]:
    """A user holding one core memory, and its export (small): (user, Turtle)."""
    user = _user()
    container.memories.remember(tenant, RememberRequest(user_id=user, text=f"记住：我对花生过敏 {user}",
                                                        type="FACTUAL", tier=Tier.CORE))
    return user, b"".join(container.export.export_rdf(tenant, user, "ttl"))


def test_uploads_over_the_limit_are_413_and_write_nothing(
        container: Container, small_server: tuple[str, str, str]) -> None:
    url, key, tenant = small_server
    _, data = _one_core_memory(container, tenant)
    padded = data + b"\n# " + b"x" * SMALL_UPLOAD + b"\n"  # a comment: the file is good, only too large
    target = _user()
    told = _post(url, key, target, "ttl", padded)  # Content-Length says so: refused before reading
    assert told.status_code == 413 and _code(told) == "LIMIT_EXCEEDED"
    assert f"{len(padded)} bytes" in _message(told) and "BMAM_EXPORT__IMPORT_MAX_BYTES" in _message(told)
    pieces = (padded[i:i + 1024] for i in range(0, len(padded), 1024))  # chunked: counted as it arrives
    counted = _post(url, key, target, "ttl", pieces)
    assert counted.status_code == 413 and _code(counted) == "LIMIT_EXCEEDED"
    fits = _post(url, key, target, "ttl", data)
    assert fits.status_code == 200 and _counts(fits.json())["Memory"] == (1, 0)
    assert len(_memories(container, tenant, target)) == 1


def test_graphql_import_over_its_limit_points_to_the_upload(
        container: Container, small_server: tuple[str, str, str]) -> None:
    url, key, tenant = small_server
    _, data = _one_core_memory(container, tenant)
    text = data.decode() + "\n# " + "好" * SMALL_GRAPHQL  # 3 bytes each in UTF-8
    target = _user()
    c = BmamClient(ClientConfig(url=url, api_key=key))
    try:
        with pytest.raises(BmamClientError) as err:
            _import(c, target, text)
        assert err.value.code == "LIMIT_EXCEEDED" and "POST /import/{userId}.{ext}" in err.value.message
        assert _stored_nothing(container, tenant, target)
    finally:
        c.close()


def test_a_file_whose_core_memories_do_not_fit_is_conflict(
        container: Container, small_server: tuple[str, str, str]) -> None:
    url, key, tenant = small_server
    _, data = _one_core_memory(container, tenant)
    full, _ = _one_core_memory(container, tenant)  # core capacity 1: full
    before = _memories(container, tenant, full)
    resp = _post(url, key, full, "ttl", data)
    assert resp.status_code == 409 and _code(resp) == "CONFLICT" and "core is full" in _message(resp), resp.text
    c = BmamClient(ClientConfig(url=url, api_key=key))
    try:
        with pytest.raises(BmamClientError) as err:
            _import(c, full, data.decode(), dry_run=True)  # a dry run is refused too
        assert err.value.code == "CONFLICT"
    finally:
        c.close()
    assert _memories(container, tenant, full) == before


# ----- tenancy ---------------------------------------------------------------------------------------------------


def test_another_apps_key_imports_into_its_own_user_and_sees_nothing_of_this_one(
        container: Container, source: Conversation, key: str, api_url: str,
        make_api_key: Callable[[str], str]) -> None:
    data = _export(api_url, key, "ttl")
    originals = _memories(container, source.tenant, USER)
    nodes = container.erasure.tenant_user_nodes(source.tenant)
    other_tenant = _fresh()
    other = make_api_key(other_tenant)

    # B's dry run into its own "alice" finds nothing there: A's alice (same user id) is not B's.
    dry = _post(api_url, other, USER, "ttl", data, dryRun="true")
    assert dry.status_code == 200 and all(c["existing"] == 0 for c in dry.json()["counts"])
    assert dry.json()["target"] == {"tenant": other_tenant, "userId": USER}
    done = _post(api_url, other, USER, "ttl", data)
    assert done.status_code == 200 and _counts(done.json())["Memory"] == (len(originals), 0)
    b = BmamClient(ClientConfig(url=api_url, api_key=other))
    try:
        report = _import(b, USER, data.decode())
        assert report["target"]["tenant"] == other_tenant and report["created"] == 0  # B's own copy, again
    finally:
        b.close()
    assert _memories(container, other_tenant, USER) == originals  # B holds a copy of its own ...
    assert _memories(container, source.tenant, USER) == originals  # ... and A's alice is as it was
    assert container.erasure.tenant_user_nodes(source.tenant) == nodes
    # B cannot read A's users that B does not have
    target = _user()
    assert _post(api_url, key, target, "ttl", data).status_code == 200
    assert requests.get(f"{api_url}/export/{target}.ttl", headers={"X-API-Key": other}, timeout=60).status_code == 404


# ----- bmam remote import ----------------------------------------------------------------------------------------


def test_remote_import_end_to_end(container: Container, source: Conversation, key: str, api_url: str,
                                  api_key: str, api_tenant: str, tmp_path: Path) -> None:
    import json

    originals = _memories(container, source.tenant, USER)
    file = tmp_path / "alice.ttl"
    file.write_bytes(_export(api_url, key, "ttl"))
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": api_key}
    target = _user()

    dry = runner.invoke(cli_app, ["remote", "import", str(file), "--user", target, "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["dryRun"] is True and _stored_nothing(container, api_tenant, target)

    first = runner.invoke(cli_app, ["remote", "import", str(file), "-u", target, "--source-user", USER], env=env)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["target"] == {"tenant": api_tenant, "userId": target}  # the key's tenant, not the file's
    assert _counts(report)["Memory"] == (len(originals), 0)
    assert _memories(container, api_tenant, target) == originals
    again = runner.invoke(cli_app, ["remote", "import", str(file), "-u", target], env=env)
    assert again.exit_code == 0 and json.loads(again.stdout)["created"] == 0

    renamed = tmp_path / "alice.txt"  # no extension to go by: --format
    renamed.write_bytes(file.read_bytes())
    unknown = runner.invoke(cli_app, ["remote", "import", str(renamed), "-u", target], env=env)
    assert unknown.exit_code == 2 and "give --format" in unknown.output
    given = runner.invoke(cli_app, ["remote", "import", str(renamed), "-u", target, "--format", "turtle"], env=env)
    assert given.exit_code == 0, given.output

    broken = tmp_path / "broken.ttl"
    broken.write_text("@prefix x: <https://x/> .\nx:a x:b x:c .\nx:a x:b \"open .\n", encoding="utf-8")
    refused = runner.invoke(cli_app, ["remote", "import", str(broken), "-u", _user()], env=env)
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == [refused.output.strip()]  # one line
    assert refused.output.startswith("error [BAD_USER_INPUT]: ttl syntax error: line 3")
    no_source = runner.invoke(cli_app, ["remote", "import", str(file), "-u", _user(), "--source-user", "zed"],
                              env=env)
    assert no_source.exit_code == 2 and "no user 'zed'" in no_source.output
    bad_key = runner.invoke(cli_app, ["remote", "import", str(file), "-u", _user()],
                            env={**env, "BMAM_API_KEY": "bmam_0123456789abcdef_nope"})
    assert bad_key.exit_code == 1 and "UNAUTHENTICATED" in bad_key.output


def test_remote_import_of_a_refused_file_exits_non_zero_with_one_line(
        container: Container, small_server: tuple[str, str, str], tmp_path: Path) -> None:
    url, key, tenant = small_server
    env = {"BMAM_SERVER": url, "BMAM_API_KEY": key}
    _, data = _one_core_memory(container, tenant)
    large = tmp_path / "large.ttl"
    large.write_bytes(data + b"\n# " + b"x" * SMALL_UPLOAD + b"\n")
    too_large = runner.invoke(cli_app, ["remote", "import", str(large), "-u", _user()], env=env)
    assert too_large.exit_code == 2 and too_large.output.startswith("error [LIMIT_EXCEEDED]:"), too_large.output
    small = tmp_path / "small.ttl"
    small.write_bytes(data)
    full, _ = _one_core_memory(container, tenant)
    conflict = runner.invoke(cli_app, ["remote", "import", str(small), "-u", full], env=env)
    assert conflict.exit_code == 1 and conflict.output.startswith("error [CONFLICT]: core is full"), conflict.output
    unreachable = runner.invoke(cli_app, ["remote", "import", str(small), "-u", full,
                                          "--server", "http://127.0.0.1:9"], env=env)
    assert unreachable.exit_code == 1 and "cannot reach http://127.0.0.1:9" in unreachable.output


def test_a_second_upload_while_one_imports_is_503_and_goes_through_after(
        container: Container, source: Conversation, monkeypatch: pytest.MonkeyPatch) -> None:
    """One upload at a time per app (BMAM_EXPORT__MAX_CONCURRENT_IMPORTS_PER_TENANT, 1): each holds its file and parse
    in memory, so another is refused with Retry-After before its body is kept, and goes through once the first ended."""
    import threading

    from resolvers.app import create_app

    own = Container(container.settings)
    tenant = _fresh()
    key = own.keys.create(tenant, "pytest").secret
    data = b"".join(container.export.export_rdf(source.tenant, USER, "ttl"))
    entered, release = threading.Event(), threading.Event()
    import_rdf = own.export.import_rdf

    def held(*args: Any, **kwargs: Any) -> Any:  # the first import, kept running until the test lets it go
        entered.set()
        assert release.wait(60)
        return import_rdf(*args, **kwargs)

    monkeypatch.setattr(own.export, "import_rdf", held)
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        first: list[requests.Response] = []
        sender = threading.Thread(target=lambda: first.append(_post(url, key, "first", "ttl", data)))
        sender.start()
        assert entered.wait(60)
        busy = _post(url, key, "second", "ttl", data)
        assert busy.status_code == 503 and _code(busy) == "UNAVAILABLE", busy.text
        assert busy.headers["retry-after"] == "5" and "another import is running" in _message(busy)
        assert _stored_nothing(own, tenant, "second")
        release.set()
        sender.join(60)
        assert first[0].status_code == 200, first[0].text
        monkeypatch.setattr(own.export, "import_rdf", import_rdf)
        again = _post(url, key, "second", "ttl", data)
        assert again.status_code == 200 and _counts(again.json())["Memory"][0] > 0, again.text


def test_a_stalled_upload_without_a_key_or_over_the_limit_never_holds_the_import_slot(
        container: Container, source: Conversation) -> None:
    """A client announcing 1000 bytes, sending 10 and then nothing, with no key (or with a key and a Content-Length
    over the limit), held the server's one import slot until it hung up: every other import was 503. It is refused
    (401 / 413) without taking the slot, and its body is not waited for (that would answer 408); a dry run goes
    through beside it. A flag given twice (dryRun=true&dryRun=false) is refused, not read as its last value."""
    import socket
    import time

    from resolvers.app import create_app

    own = Container(container.settings)
    tenant = _fresh()
    key = own.keys.create(tenant, "pytest").secret
    data = b"".join(container.export.export_rdf(source.tenant, USER, "ttl"))
    app = create_app(own, migrate=False, bind_host="127.0.0.1", dev_key_enabled=False)
    with served(app) as url:
        host, port = url.removeprefix("http://").split(":")
        stalled = []
        for headers in (b"", f"X-API-Key: {key}\r\n".encode()):
            length = b"1000" if not headers else str(10 ** 10).encode()
            # a hang guard, not a speed measure: the refusal follows the drain of a refused body (5 s at most)
            s = socket.create_connection((host, int(port)), timeout=60)
            s.sendall(b"POST /import/stalled.ttl HTTP/1.1\r\nHost: x\r\n" + headers + b"Content-Length: " + length
                      + b"\r\n\r\n0123456789")
            stalled.append(s)
        time.sleep(0.5)
        ok = _post(url, key, "dry", "ttl", data, dryRun="true")
        assert ok.status_code == 200 and ok.json()["dryRun"] is True, ok.text
        for s, status in zip(stalled, (b"401", b"413"), strict=True):
            answer = s.recv(4096)
            assert answer.split(b" ")[1] == status, answer[:200]
            s.close()
        twice = requests.post(f"{url}/import/dupq.ttl?dryRun=true&dryRun=false", data=data, timeout=60,
                              headers={"X-API-Key": key})
        assert twice.status_code == 400 and "given twice" in _message(twice), twice.text
    assert _stored_nothing(container, tenant, "dupq") and _stored_nothing(container, tenant, "dry")
